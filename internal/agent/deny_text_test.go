package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/tools"
)

// A denial tells the model who decided and what to do next; in a headless
// run it never suggests asking the user (nobody is there), and it never
// calls a denial nobody gave "the user's answer".
func TestDenialTextHeadlessVsInteractive(t *testing.T) {
	for _, tc := range []struct {
		name     string
		approver Approver
		want     []string
		not      []string
	}{
		{"headless", Headless{}, []string{"nobody can answer in this mode", "nobody can answer questions in this run"}, []string{"ask the user", "user declined"}},
		{"interactive, declined", approverFunc(func(context.Context, ApprovalRequest) (Approval, string) { return ApproveDeny, "" }),
			[]string{"the user declined", "or ask the user"}, []string{"nobody can answer"}},
	} {
		reg := tools.NewRegistry()
		reg.Register(&agenttest.Tool{ToolName: "edit_file"})
		e := NewExecutor(Config{Tools: reg, Approver: tc.approver, Emit: (&events{}).emit,
			Permissions: &perms{fn: verdict(permission.Ask, "edits need approval", "mode:default")}})
		res := e.Execute(context.Background(), call("1", "edit_file", `{"file_path":"a.go","old_string":"a","new_string":"b"}`))
		for _, w := range tc.want {
			if !strings.Contains(res.Content, w) {
				t.Errorf("%s: lacks %q: %s", tc.name, w, res.Content)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(res.Content, n) {
				t.Errorf("%s: says %q: %s", tc.name, n, res.Content)
			}
		}
	}
}

type approverFunc func(context.Context, ApprovalRequest) (Approval, string)

func (f approverFunc) Approve(ctx context.Context, r ApprovalRequest) (Approval, string) {
	return f(ctx, r)
}
