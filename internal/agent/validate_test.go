package agent

import (
	"testing"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
)

func TestValidateHistory(t *testing.T) {
	u := llm.UserText
	asst := func(blocks ...llm.Block) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: blocks} }
	usr := func(blocks ...llm.Block) llm.Message { return llm.Message{Role: llm.RoleUser, Content: blocks} }
	txt := llm.Block{Type: llm.BlockText, Text: "t"}
	res := func(id string) llm.Block { return toolResult(id, "r", false) }
	a, b := call("a", "x", `{}`), call("b", "x", `{}`)
	for _, tc := range []struct {
		name string
		h    []llm.Message
		ok   bool
	}{
		{"empty", nil, true},
		{"plain", []llm.Message{u("q"), asst(txt)}, true},
		{"paired", []llm.Message{u("q"), asst(txt, a, b), usr(res("a"), res("b")), asst(txt)}, true},
		{"results then text", []llm.Message{u("q"), asst(a), usr(res("a"), txt)}, true},
		{"starts with assistant", []llm.Message{asst(txt)}, false},
		{"missing result", []llm.Message{u("q"), asst(a, b), usr(res("a"))}, false},
		{"wrong order", []llm.Message{u("q"), asst(a, b), usr(res("b"), res("a"))}, false},
		{"result answers nothing", []llm.Message{u("q"), asst(txt), usr(res("a"))}, false},
		{"ends with calls", []llm.Message{u("q"), asst(a)}, false},
		{"calls answered by assistant", []llm.Message{u("q"), asst(a), asst(txt)}, false},
		{"duplicate id", []llm.Message{u("q"), asst(a), usr(res("a")), asst(a), usr(res("a"))}, false},
		{"empty message", []llm.Message{u("q"), asst()}, false},
		{"invalid input", []llm.Message{u("q"), asst(call("a", "x", `{"a":`)), usr(res("a"))}, false},
	} {
		err1, err2 := ValidateHistory(tc.h), agenttest.CheckPairing(tc.h)
		if (err1 == nil) != tc.ok || (err2 == nil) != tc.ok {
			t.Errorf("%s: ValidateHistory = %v, CheckPairing = %v, want ok=%v", tc.name, err1, err2, tc.ok)
		}
	}
}
