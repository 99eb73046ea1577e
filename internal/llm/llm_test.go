package llm

import (
	"strings"
	"testing"
)

func TestPurposeTagRoundTrip(t *testing.T) {
	for _, p := range []Purpose{PurposeCompact, PurposeGoalEval, PurposeClassifier, PurposeMemoryRecall} {
		tag := PurposeTag(p)
		if tag == "" || strings.Contains(tag, "\n") {
			t.Fatalf("tag %q must be one line", tag)
		}
		req := &Request{System: []SystemBlock{{Text: tag + "\nYou summarise conversations."}}}
		if got := DetectPurpose(req); got != p {
			t.Errorf("DetectPurpose(%q) = %q", tag, got)
		}
		if got := PurposeFromText("  \n" + tag); got != p {
			t.Errorf("leading whitespace: %q", got)
		}
	}
	if PurposeTag(PurposeMain) != "" || PurposeTag("") != "" {
		t.Error("main requests carry no tag")
	}
	tests := []struct {
		req  *Request
		want Purpose
	}{
		{nil, PurposeMain},
		{&Request{}, PurposeMain},
		{&Request{System: []SystemBlock{{Text: "You are hew."}}}, PurposeMain},
		{&Request{Purpose: PurposeCompact, System: []SystemBlock{{Text: "You are hew."}}}, PurposeCompact},
		{&Request{System: []SystemBlock{{Text: "You are hew."}, {Text: PurposeTag(PurposeCompact)}}}, PurposeMain},
	}
	for _, tc := range tests {
		if got := DetectPurpose(tc.req); got != tc.want {
			t.Errorf("DetectPurpose(%+v) = %q, want %q", tc.req, got, tc.want)
		}
	}
}

func TestTaggedSystem(t *testing.T) {
	req := &Request{Purpose: PurposeClassifier, System: []SystemBlock{{Text: "Decide.", Cache: true}}}
	got := TaggedSystem(req)
	if !strings.HasPrefix(got[0].Text, PurposeTag(PurposeClassifier)+"\n") || !got[0].Cache {
		t.Fatalf("got %+v", got)
	}
	if req.System[0].Text != "Decide." {
		t.Fatal("TaggedSystem changed the request")
	}
	// Already tagged: unchanged; no system at all: the tag alone.
	if again := TaggedSystem(&Request{Purpose: PurposeClassifier, System: got}); again[0].Text != got[0].Text {
		t.Errorf("tag added twice: %q", again[0].Text)
	}
	if only := TaggedSystem(&Request{Purpose: PurposeCompact}); len(only) != 1 || only[0].Text != PurposeTag(PurposeCompact) {
		t.Errorf("%+v", only)
	}
	if main := TaggedSystem(&Request{System: []SystemBlock{{Text: "x"}}}); main[0].Text != "x" {
		t.Errorf("main request changed: %+v", main)
	}
}

func TestEstimateCost(t *testing.T) {
	u := Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000, CacheReadTokens: 1_000_000, CacheWriteTokens: 1_000_000}
	usd, known := EstimateCost("claude-sonnet-4-5-20250929", u)
	if !known || usd != 3+15+0.3+3.75 {
		t.Errorf("sonnet: %v %v", usd, known)
	}
	if usd, known := EstimateCost("anthropic/claude-sonnet-4", Usage{InputTokens: 1_000_000}); !known || usd != 3 {
		t.Errorf("router prefix: %v %v", usd, known)
	}
	if usd, known := EstimateCost("my-local-llama", u); known || usd != 0 {
		t.Errorf("unknown model must be unknown, got %v %v", usd, known)
	}
	if LookupModel("gpt-4o-mini-2024").Input != 0.15 {
		t.Error("longest prefix must win")
	}
	if LookupModel("claude-3-5-haiku").Thinking || !LookupModel("claude-sonnet-4-5").Thinking {
		t.Error("thinking support")
	}
}

func TestAPIError(t *testing.T) {
	e := &APIError{Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens", Retries: 0}
	if e.Error() != "model API error 400 (invalid_request_error): prompt is too long: 210000 tokens" || !e.PromptTooLong() {
		t.Errorf("%q %v", e.Error(), e.PromptTooLong())
	}
	if (&APIError{Status: 529, Message: "Overloaded"}).PromptTooLong() {
		t.Error("529 is not a long prompt")
	}
}
