package agent

// classify.go: the auto-mode safety classifier, a side request that allows
// or blocks one call.

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
)

// classifierPrompt instructs the auto-mode side request. The answer format
// is strict so that anything else can be treated as a block.
const classifierPrompt = `You are the safety classifier of a coding agent running in auto mode.
You are shown the user's latest request and one tool call the agent wants to make.
Allow the call when it is a reasonable step toward the user's request and cannot cause
irreversible damage outside the project (deleting or overwriting data the user did not ask
to change, leaking secrets, contacting unexpected hosts, changing system configuration).
Otherwise block it.
Answer with one JSON object and nothing else:
{"decision": "allow" | "block", "reason": "<one sentence>"}`

// classify asks the model whether an auto-mode call may run. An error or an
// answer that does not parse is a block.
func (p *pipeline) classify(ctx context.Context, pr *prepared) (bool, string) {
	if p.side == nil {
		return false, "no model is available to classify the call"
	}
	var b strings.Builder
	if p.intent != nil {
		if in := p.intent(); in != "" {
			b.WriteString("User's latest request:\n")
			b.WriteString(shortenString(in, 4000))
			b.WriteString("\n\n")
		}
	}
	b.WriteString("Tool call:\n")
	b.WriteString(pr.call.Name)
	b.WriteString(" ")
	b.Write(shortenInput(pr.input, 2000))
	if pr.verdict.Reason != "" {
		b.WriteString("\n\nWhy it needs a decision: ")
		b.WriteString(pr.verdict.Reason)
	}
	req := &llm.Request{
		System:    []llm.SystemBlock{{Text: llm.PurposeTag(llm.PurposeClassifier) + "\n" + classifierPrompt}},
		Messages:  []llm.Message{llm.UserText(b.String())},
		MaxTokens: 1024,
		Purpose:   llm.PurposeClassifier,
	}
	resp, err := p.side(ctx, req)
	if err != nil {
		return false, "classifier request failed: " + err.Error()
	}
	return parseClassifierVerdict(resp.Message.Text())
}

// parseClassifierVerdict reads {"decision": "allow"|"block", "reason": …}
// (possibly inside a code fence or prose) or a first line "ALLOW: reason" /
// "BLOCK: reason". An allow needs a reason; anything else blocks.
func parseClassifierVerdict(text string) (bool, string) {
	const unparsable = "the classifier's verdict could not be parsed, so the call is blocked"
	if i, j := strings.Index(text, "{"), strings.LastIndex(text, "}"); i >= 0 && j > i {
		var v struct {
			Decision string `json:"decision"`
			Verdict  string `json:"verdict"`
			Reason   string `json:"reason"`
		}
		if json.Unmarshal([]byte(text[i:j+1]), &v) == nil {
			d := strings.ToLower(strings.TrimSpace(v.Decision + v.Verdict))
			reason := strings.TrimSpace(v.Reason)
			switch {
			case d == "allow" && reason != "":
				return true, reason
			case d == "block" || d == "deny":
				return false, orDefault(reason, "blocked by the classifier")
			}
			return false, unparsable
		}
	}
	line := strings.TrimSpace(text)
	if k := strings.IndexByte(line, '\n'); k >= 0 {
		line = strings.TrimSpace(line[:k])
	}
	upper := strings.ToUpper(line)
	for _, w := range []string{"ALLOW", "BLOCK"} {
		if strings.HasPrefix(upper, w) {
			reason := strings.TrimSpace(strings.TrimLeft(line[len(w):], ":-— "))
			if w == "ALLOW" && reason != "" {
				return true, reason
			}
			if w == "BLOCK" {
				return false, orDefault(reason, "blocked by the classifier")
			}
		}
	}
	return false, unparsable
}
