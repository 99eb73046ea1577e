package agent

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/agent/agenttest"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/testenv"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	root := project(t)
	testenv.GitRepo(t, root)
	return root
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return testenv.Git(t, dir, args...)
}

func TestWorktreeIsolationTwoWriters(t *testing.T) {
	root := gitRepo(t)
	var started atomic.Int32
	both := make(chan struct{})
	wait := func(ctx context.Context) {
		if started.Add(1) == 2 {
			close(both)
		}
		select {
		case <-both:
		case <-time.After(5 * time.Second):
		case <-ctx.Done():
		}
	}
	prov := agenttest.NewProvider(
		agenttest.Step{Calls: []llm.Block{
			agenttest.Call("a", "agent", `{"description":"writer one","prompt":"write one.txt","subagent_type":"general","isolation":"worktree"}`),
			agenttest.Call("b", "agent", `{"description":"writer two","prompt":"write two.txt","subagent_type":"general","isolation":"worktree"}`),
		}},
		agenttest.Step{Before: wait, Calls: []llm.Block{agenttest.Call("w1", "write_file", `{"file_path":"out.txt","content":"from a writer\n"}`)}},
		agenttest.Step{Before: wait, Calls: []llm.Block{agenttest.Call("w2", "write_file", `{"file_path":"out.txt","content":"from a writer\n"}`)}},
		agenttest.Step{Text: "wrote it"},
		agenttest.Step{Text: "wrote it"},
		agenttest.Step{Text: "both done"},
	)
	pa := newParent(t, prov, root, permission.ModeAcceptEdits)
	res := pa.agent.Run(context.Background(), "two writers")
	if res.StopReason != agent.StopCompleted || res.Text != "both done" {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(filepath.Join(root, "out.txt")); err == nil {
		t.Fatal("a sub-agent wrote into the main checkout")
	}
	branchRE := regexp.MustCompile(`branch (hew/agent-[a-z0-9-]+)`)
	var branches []string
	for _, r := range toolResults(pa.agent.History()) {
		m := branchRE.FindStringSubmatch(r.Content)
		if m == nil || !strings.Contains(r.Content, "out.txt | 1 +") || !strings.Contains(r.Content, "git merge "+m[1]) {
			t.Fatalf("result lacks branch or diff summary:\n%s", r.Content)
		}
		branches = append(branches, m[1])
	}
	if len(branches) != 2 || branches[0] == branches[1] {
		t.Fatalf("branches %v", branches)
	}
	for _, b := range branches {
		if got := gitOut(t, root, "show", b+":out.txt"); got != "from a writer\n" {
			t.Errorf("%s holds %q", b, got)
		}
	}
	if st := gitOut(t, root, "status", "--porcelain"); st != "" {
		t.Errorf("the main checkout changed:\n%s", st)
	}
	if wl := gitOut(t, root, "worktree", "list"); strings.Count(wl, "\n") != 1 {
		t.Errorf("worktrees left behind:\n%s", wl)
	}
}
