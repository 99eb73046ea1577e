package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
)

// sessionHistory is n messages of a coding session: prompts, answers with calls,
// results of about 1 KB.
func sessionHistory(n int) []llm.Message {
	var h []llm.Message
	for i := 0; len(h) < n; i++ {
		switch i % 3 {
		case 0:
			h = append(h, llm.UserText(fmt.Sprintf("step %d: look at the next file", i)))
		case 1:
			h = append(h, llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "Reading it."},
				{Type: llm.BlockToolUse, ID: fmt.Sprintf("toolu_%d", i), Name: "read_file", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"f%d.go"}`, i))}}})
		case 2:
			h = append(h, llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: fmt.Sprintf("toolu_%d", i-1), Content: strings.Repeat("package x // some code\n", 45)}}})
		}
	}
	return h
}

// The cached encoding is byte-identical to a fresh one while the history
// grows, and a message changed in place is encoded again.
func TestMsgCacheMatchesFreshEncoding(t *testing.T) {
	c := newMsgCache()
	h := sessionHistory(60)
	for n := 1; n <= len(h); n++ {
		req := &llm.Request{Model: "claude-sonnet-4", Messages: h[:n], Purpose: llm.PurposeMain}
		fresh, err1 := encodeRequest(req, true, encOpts{})
		cached, _, _, err2 := encodeRequestCached(req, true, encOpts{}, c)
		if err1 != nil || err2 != nil || !bytes.Equal(fresh, cached) {
			t.Fatalf("n=%d: cached encoding differs (%v %v)", n, err1, err2)
		}
	}
	h[5].Content[0].Content = "rewritten in place" // same slice, new text (a tier shortening a result)
	req := &llm.Request{Model: "claude-sonnet-4", Messages: h, Purpose: llm.PurposeMain}
	cached, _, _, _ := encodeRequestCached(req, true, encOpts{}, c)
	fresh, _ := encodeRequest(req, true, encOpts{})
	if !bytes.Equal(fresh, cached) || !bytes.Contains(cached, []byte("rewritten in place")) {
		t.Fatal("a message changed in place was served from the cache")
	}
	if len(c.entries) > len(h)+2 {
		t.Errorf("%d entries for %d messages", len(c.entries), len(h))
	}
}

// sameBlocks must compare every field of llm.Block: a field added there
// and not here would let a changed message be served stale.
func TestSameBlocksCoversEveryField(t *testing.T) {
	if n := reflect.TypeOf(llm.Block{}).NumField(); n != 12 {
		t.Fatalf("llm.Block has %d fields; update sameBlocks and this count", n)
	}
}

// BenchmarkEncodeGrowingHistory is the adapter's cost per request as the
// conversation grows: with the cache only the two marked messages and the
// newest ones are encoded, the rest is copied.
func BenchmarkEncodeGrowingHistory(b *testing.B) {
	tools := []llm.ToolSpec{{Name: "read_file", Description: "Reads a file.", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	for _, n := range []int{10, 100, 1000} {
		for _, cached := range []bool{false, true} {
			name := fmt.Sprintf("%d/fresh", n)
			var c *msgCache
			if cached {
				name, c = fmt.Sprintf("%d/cached", n), newMsgCache()
			}
			b.Run(name, func(b *testing.B) {
				h := sessionHistory(n)
				req := &llm.Request{Model: "claude-sonnet-4", Tools: tools, Messages: h, Purpose: llm.PurposeMain}
				if _, _, _, err := encodeRequestCached(req, true, encOpts{}, c); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, _, _, err := encodeRequestCached(req, true, encOpts{}, c); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// The wire fingerprint of a message does not change when its cache marker
// moves away, and does when its bytes change.
func TestWirePrintIgnoresMovingMarkers(t *testing.T) {
	h := sessionHistory(12)
	c := newMsgCache()
	_, p1, _, _ := encodeRequestCached(&llm.Request{Model: "m", Messages: h[:9]}, true, encOpts{}, c)
	_, p2, _, _ := encodeRequestCached(&llm.Request{Model: "m", Messages: h}, true, encOpts{}, nil)
	for i := range p1.Messages {
		if p1.Messages[i] != p2.Messages[i] {
			t.Fatalf("message %d print changed although only markers moved", i)
		}
	}
	h2 := append([]llm.Message(nil), h...)
	h2[2] = llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ID: h[2].Content[0].ID, Content: "other"}}}
	_, p3, _, _ := encodeRequestCached(&llm.Request{Model: "m", Messages: h2}, true, encOpts{}, c)
	if p3.Messages[2] == p2.Messages[2] || p3.Messages[1] != p2.Messages[1] {
		t.Fatal("print does not follow the message bytes")
	}
}
