package repl

import (
	"context"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/render"
)

// The four answers from a pipe, and the rule shown before it is saved.
func TestApprovalOptionsFromAPipe(t *testing.T) {
	withRule := agent.ApprovalRequest{Tool: "run_shell", Subject: "terraform plan", Suggest: "run_shell(terraform plan:*)"}
	noRule := agent.ApprovalRequest{Tool: "run_shell", Subject: "rm -rf ~/x"}
	cases := []struct {
		line string
		req  agent.ApprovalRequest
		want agent.Approval
		note string
	}{
		{"y", withRule, agent.ApproveOnce, ""},
		{"a", withRule, agent.ApproveAlways, ""},
		{"always", noRule, agent.ApproveSession, ""},
		{"s", withRule, agent.ApproveSession, ""},
		{"n", withRule, agent.ApproveDeny, "the user said no"},
		{"m run the tests first", withRule, agent.ApproveDeny, "run the tests first"},
		{"no: not on prod", noRule, agent.ApproveDeny, "not on prod"},
		{"m ", withRule, agent.ApproveDeny, "the user said no"},
		{"whatever", withRule, agent.ApproveDeny, "the user said no"},
	}
	for _, c := range cases {
		s, in, out, _ := term.Test()
		in.WriteString(c.line + "\n")
		ap := NewApprover(s, render.New(s, render.Options{}))
		got, note := ap.Approve(context.Background(), c.req)
		if got != c.want || note != c.note {
			t.Errorf("%q: %s %q, want %s %q", c.line, got, note, c.want, c.note)
		}
		shown := out.String()
		if c.req.Suggest != "" && !strings.Contains(shown, "run_shell(terraform plan:*)") {
			t.Errorf("the rule is not shown before saving:\n%s", shown)
		}
		if c.req.Suggest == "" && strings.Contains(shown, "saves") {
			t.Errorf("a rule line without a rule:\n%s", shown)
		}
	}
}

// On a terminal, m takes a typed message up to Enter; keys that arrive
// all at once (a paste, tmux send-keys) are all kept.
func TestApprovalMessageIsTyped(t *testing.T) {
	s, _, out, _ := term.Test()
	ap := NewApprover(s, render.New(s, render.Options{}))
	ap.useKeys(true)
	closeInbox := ap.open()
	defer closeInbox()
	for _, k := range []key{{kind: kRune, r: 'n'}, {kind: kRune, r: 'o'}, {kind: kRune, r: 'x'}, {kind: kBackspace}, {kind: kRune, r: 't'}, {kind: kEnter}} {
		if !ap.offer(k) {
			t.Fatal("the open question refused a key")
		}
	}
	got, note := ap.message(context.Background())
	if got != agent.ApproveDeny || note != "not" {
		t.Fatalf("%s %q (screen %q)", got, note, out.String())
	}
	closeInbox()
	if ap.offer(key{kind: kRune, r: 'y'}) {
		t.Error("a closed question took a key")
	}
}
