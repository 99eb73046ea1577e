package llm

import (
	"encoding/json"
	"testing"
)

func TestValidateHistory(t *testing.T) {
	u := UserText
	asst := func(blocks ...Block) Message { return Message{Role: RoleAssistant, Content: blocks} }
	usr := func(blocks ...Block) Message { return Message{Role: RoleUser, Content: blocks} }
	txt := Block{Type: BlockText, Text: "t"}
	res := func(id string) Block { return Block{Type: BlockToolResult, ID: id, Content: "r"} }
	call := func(id, name, in string) Block {
		return Block{Type: BlockToolUse, ID: id, Name: name, Input: json.RawMessage(in)}
	}
	a, b := call("a", "x", `{}`), call("b", "x", `{}`)
	for _, tc := range []struct {
		name string
		h    []Message
		ok   bool
	}{
		{"empty", nil, true},
		{"plain", []Message{u("q"), asst(txt)}, true},
		{"paired", []Message{u("q"), asst(txt, a, b), usr(res("a"), res("b")), asst(txt)}, true},
		{"results then text", []Message{u("q"), asst(a), usr(res("a"), txt)}, true},
		{"starts with assistant", []Message{asst(txt)}, false},
		{"missing result", []Message{u("q"), asst(a, b), usr(res("a"))}, false},
		{"wrong order", []Message{u("q"), asst(a, b), usr(res("b"), res("a"))}, false},
		{"result answers nothing", []Message{u("q"), asst(txt), usr(res("a"))}, false},
		{"ends with calls", []Message{u("q"), asst(a)}, false},
		{"calls answered by assistant", []Message{u("q"), asst(a), asst(txt)}, false},
		{"duplicate id", []Message{u("q"), asst(a), usr(res("a")), asst(a), usr(res("a"))}, false},
		{"empty message", []Message{u("q"), asst()}, false},
		{"invalid input", []Message{u("q"), asst(call("a", "x", `{"a":`)), usr(res("a"))}, false},
	} {
		if err := ValidateHistory(tc.h); (err == nil) != tc.ok {
			t.Errorf("%s: ValidateHistory = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
