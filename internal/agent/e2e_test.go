package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/mock"
	"github.com/hew-dev/hew/internal/llm/scenario"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/testenv"
	"github.com/hew-dev/hew/internal/tools"
)

// e2e is a session over the mock provider, the real built-in tools and
// the real permission engine, in a temporary project.
type e2e struct {
	t     *testing.T
	root  string
	home  string
	state string
	a     *Agent
	ev    *events
	rec   *recorder
	ap    *approver
	reg   *tools.Registry
}

// newE2E writes files into a fresh project, loads its settings and starts
// an agent that plays the scenario.
func newE2E(t *testing.T, files map[string]string, scenarioJSON string, mode permission.Mode, wrap func(*tools.Registry)) *e2e {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := scenario.Parse([]byte(scenarioJSON))
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	settings, err := config.Load(config.Paths{Home: home, Project: root, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := permission.New(permission.Options{Root: root, HomeDir: home, HewHome: home, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	if wrap != nil {
		wrap(reg)
	}
	x := &e2e{t: t, root: root, home: home, state: filepath.Join(home, "projects", "p"), ev: &events{}, rec: &recorder{}, ap: &approver{}, reg: reg}
	x.a, err = New(Config{
		Provider: mock.New(sc), Model: "mock", Tools: reg, Permissions: eng, Mode: mode,
		Approver: x.ap, Emit: x.ev.emit, Recorder: x.rec, SessionID: "e2e",
		Env: &tools.Env{Root: root, HomeDir: home, StateDir: x.state, AllowOutside: eng.AllowsOutside},
	})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func (x *e2e) run(prompt string) TurnResult {
	x.t.Helper()
	res := x.a.Run(context.Background(), prompt)
	if err := llm.ValidateHistory(x.a.History()); err != nil {
		x.t.Fatalf("history invalid: %v", err)
	}
	return res
}

func (x *e2e) results() []llm.Block {
	var out []llm.Block
	for _, m := range x.a.History() {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				out = append(out, b)
			}
		}
	}
	return out
}

func (x *e2e) read(name string) string {
	b, err := os.ReadFile(filepath.Join(x.root, name))
	if err != nil {
		x.t.Fatal(err)
	}
	return string(b)
}

func TestE2EReadThenEditThreeLines(t *testing.T) {
	x := newE2E(t, map[string]string{"notes.txt": "one\ntwo\nthree\nfour\nfive\n"}, `{"turns": [
		{"text": "Reading.", "tool_calls": [{"name": "read_file", "input": {"file_path": "notes.txt"}}]},
		{"text": "Editing.", "tool_calls": [{"name": "edit_file", "input": {"file_path": "notes.txt", "old_string": "two\nthree\nfour", "new_string": "2\n3\n4"}}]},
		{"text": "Changed lines 2-4."}
	]}`, permission.ModeAcceptEdits, nil)
	res := x.run("number lines 2-4")
	if res.StopReason != StopCompleted || res.ToolCalls != 2 || res.Text != "Changed lines 2-4." {
		t.Fatalf("result = %+v", res)
	}
	if got := x.read("notes.txt"); got != "one\n2\n3\n4\nfive\n" {
		t.Fatalf("file = %q; results %+v", got, x.results())
	}
	for _, r := range x.results() {
		if r.IsError {
			t.Fatalf("error result: %+v", r)
		}
	}
	fin := eventsOf[ToolFinished](x.ev)
	if len(fin) != 2 || !strings.Contains(fin[1].Display+fin[1].Result, "+2") {
		t.Fatalf("edit should report a diff: %+v", fin)
	}
}

// overlap wraps a tool and records how many of its calls ran at once. A
// call waits (bounded) for a second one to start, so two calls that run in
// parallel are seen overlapping regardless of speed.
type overlap struct {
	tools.Tool
	inflight, peak atomic.Int32
	mu             sync.Mutex
	second         chan struct{}
}

func (o *overlap) Run(ctx context.Context, env *tools.Env, in json.RawMessage) (tools.Result, error) {
	n := o.inflight.Add(1)
	defer o.inflight.Add(-1)
	for {
		p := o.peak.Load()
		if n <= p || o.peak.CompareAndSwap(p, n) {
			break
		}
	}
	o.mu.Lock()
	if n >= 2 {
		close(o.second)
	}
	o.mu.Unlock()
	select {
	case <-o.second:
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
	}
	return o.Tool.Run(ctx, env, in)
}

func TestE2ETwoReadsInParallelAndWriteBarrier(t *testing.T) {
	var ov *overlap
	x := newE2E(t, map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"}, `{"turns": [
		{"text": "Reading both.", "tool_calls": [
			{"id": "r1", "name": "read_file", "input": {"file_path": "a.txt"}},
			{"id": "r2", "name": "read_file", "input": {"file_path": "b.txt"}},
			{"id": "w1", "name": "write_file", "input": {"file_path": "c.txt", "content": "gamma\n"}},
			{"id": "r3", "name": "list_files", "input": {"pattern": "c.txt"}}
		]},
		{"text": "Done."}
	]}`, permission.ModeAcceptEdits, func(r *tools.Registry) {
		rf, _ := r.Get("read_file")
		ov = &overlap{Tool: rf, second: make(chan struct{})}
		r.Register(ov)
	})
	res := x.run("read a and b, write c")
	if res.StopReason != StopCompleted {
		t.Fatalf("result = %+v", res)
	}
	if ov.peak.Load() != 2 {
		t.Fatalf("the two reads did not overlap (peak %d)", ov.peak.Load())
	}
	rs := x.results()
	if len(rs) != 4 || rs[0].ID != "r1" || rs[1].ID != "r2" || rs[2].ID != "w1" || rs[3].ID != "r3" {
		t.Fatalf("results out of order: %+v", rs)
	}
	if !strings.Contains(rs[0].Content, "alpha") || !strings.Contains(rs[1].Content, "beta") {
		t.Fatalf("read results = %q / %q", rs[0].Content, rs[1].Content)
	}
	// The listing after the write barrier sees the written file.
	if !strings.Contains(rs[3].Content, "c.txt") || x.read("c.txt") != "gamma\n" {
		t.Fatalf("listing after the write = %q", rs[3].Content)
	}
}

func TestE2EHugeOutputPersistedAndReadBack(t *testing.T) {
	testenv.Tool(t, "bash")
	x := newE2E(t, nil, `{"turns": []}`, permission.ModeBypass, nil)
	path := tools.ToolResultPath(x.state, tools.ResultID("e2e", "big1"))
	sc := `{"turns": [
		{"tool_calls": [{"id": "big1", "name": "run_shell", "input": {"command": "seq 1 30000"}}]},
		{"tool_calls": [{"id": "rd1", "name": "read_file", "input": {"file_path": ` + string(mustJSON(path)) + `, "offset": 29990, "limit": 5}}]},
		{"text": "Found the tail."}
	]}`
	parsed, err := scenario.Parse([]byte(sc))
	if err != nil {
		t.Fatal(err)
	}
	x.a.SetModel(mock.New(parsed), "mock")
	res := x.run("count")
	if res.StopReason != StopCompleted {
		t.Fatalf("result = %+v", res)
	}
	rs := x.results()
	if len(rs[0].Content) > 50000 || !strings.Contains(rs[0].Content, path) {
		t.Fatalf("big result not shaped with its path: %d chars", len(rs[0].Content))
	}
	saved, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(saved), "\n29999\n30000") {
		t.Fatalf("full output not saved at %s: %v", path, err)
	}
	if rs[1].IsError || !strings.Contains(rs[1].Content, "29994") {
		t.Fatalf("read_file of the saved result = %+v", rs[1])
	}
	var rc *Receipt
	for _, f := range eventsOf[ToolFinished](x.ev) {
		if f.ID == "big1" {
			rc = f.Receipt
		}
	}
	if rc == nil || rc.StoredAt != path || rc.ResultBytes < 150000 {
		t.Fatalf("receipt = %+v", rc)
	}
}

func TestE2EEditAfterExternalChangeRejected(t *testing.T) {
	x := newE2E(t, map[string]string{"cfg.txt": "port=1\n"}, `{"turns": [
		{"tool_calls": [{"id": "r", "name": "read_file", "input": {"file_path": "cfg.txt"}}]},
		{"tool_calls": [{"id": "e", "name": "edit_file", "input": {"file_path": "cfg.txt", "old_string": "port=1", "new_string": "port=2"}}]},
		{"text": "The file changed; I will re-read it."}
	]}`, permission.ModeAcceptEdits, nil)
	// Someone edits the file between the read and the edit.
	x.a.cfg.Emit = func(e Event) {
		x.ev.emit(e)
		if f, ok := e.(ToolFinished); ok && f.ID == "r" {
			os.WriteFile(filepath.Join(x.root, "cfg.txt"), []byte("port=1\nhost=x\n"), 0o644)
			future := time.Now().Add(2 * time.Second)
			os.Chtimes(filepath.Join(x.root, "cfg.txt"), future, future)
		}
	}
	res := x.run("set port 2")
	rs := x.results()
	if res.StopReason != StopCompleted || len(rs) != 2 || !rs[1].IsError {
		t.Fatalf("edit was not rejected: %+v / %+v", res, rs)
	}
	t.Logf("edit result: %s", rs[1].Content)
	if got := x.read("cfg.txt"); got != "port=1\nhost=x\n" {
		t.Fatalf("file = %q", got)
	}
}

// TestSeedCheckpoint is seed 004's checkpoint: a deny rule stops rm -rf
// without a question, the danger analysis asks about rmdir and the user
// says no; the directory survives and both denials are reported.
func TestSeedCheckpoint(t *testing.T) {
	testenv.Tool(t, "bash")
	x := newE2E(t, map[string]string{
		".hew/settings.json": `{"permissions": {"deny": ["run_shell(rm -rf*)"]}}`,
		"demo/keep.txt":      "important\n",
	}, `{"turns": [
		{"text": "Let me look.", "tool_calls": [{"id": "ls", "name": "list_files", "input": {"pattern": "**"}}]},
		{"text": "Removing demo.", "tool_calls": [{"id": "rm", "name": "run_shell", "input": {"command": "rm -rf demo"}}]},
		{"text": "Trying rmdir.", "tool_calls": [{"id": "rmdir", "name": "run_shell", "input": {"command": "rmdir demo"}}]},
		{"text": "Both deletions were refused, so demo/ is still there."}
	]}`, permission.ModeDefault, nil)
	res := x.run("delete the demo directory")
	if res.StopReason != StopCompleted {
		t.Fatalf("result = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(x.root, "demo", "keep.txt")); err != nil {
		t.Fatalf("demo was deleted: %v", err)
	}
	if len(res.Denials) != 2 || res.Denials[0].ToolUseID != "rm" || res.Denials[1].ToolUseID != "rmdir" {
		t.Fatalf("denials = %+v", res.Denials)
	}
	if len(x.ap.asked) != 1 || x.ap.asked[0].ID != "rmdir" || x.ap.asked[0].Subject != "rmdir demo" {
		t.Fatalf("questions = %+v (rm -rf must be denied without one)", x.ap.asked)
	}
	rs := x.results()
	if !strings.Contains(rs[0].Content, "keep.txt") || !strings.HasPrefix(rs[1].Content, "Action denied:") || !strings.HasPrefix(rs[2].Content, "Action denied:") {
		t.Fatalf("results = %+v", rs)
	}
	t.Logf("rm: %s\nrmdir: %s (asked because: %s)", rs[1].Content, rs[2].Content, x.ap.asked[0].Reason)
	var decided []string
	for _, d := range eventsOf[PermissionDecided](x.ev) {
		decided = append(decided, d.Tool+":"+d.Decision+":"+d.Source)
	}
	if len(decided) != 3 || !strings.HasPrefix(decided[1], "run_shell:deny:rule") || decided[2] != "run_shell:deny:user" {
		t.Fatalf("permission events = %v", decided)
	}
}

// TestE2EStreamCutAndRetried: the mock drops the stream after some chunks,
// the provider retries; calls started during the dropped stream are
// discarded, and each call gets exactly one result.
func TestE2EStreamCutAndRetried(t *testing.T) {
	x := newE2E(t, map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"}, `{"turns": [
		{"error": {"status": 529}},
		{"text": "Reading both files now.", "cut_after_chunks": 12, "chunk_size": 4, "tool_calls": [
			{"id": "r1", "name": "read_file", "input": {"file_path": "a.txt"}},
			{"id": "r2", "name": "read_file", "input": {"file_path": "b.txt"}}
		]},
		{"text": "alpha and beta."}
	]}`, permission.ModeDefault, nil)
	res := x.run("read a and b")
	if res.StopReason != StopCompleted || res.Text != "alpha and beta." {
		t.Fatalf("result = %+v", res)
	}
	rs := x.results()
	if len(rs) != 2 || rs[0].ID != "r1" || !strings.Contains(rs[0].Content, "alpha") || !strings.Contains(rs[1].Content, "beta") {
		t.Fatalf("results = %+v", rs)
	}
	retries := 0
	for _, n := range eventsOf[Notice](x.ev) {
		if strings.HasPrefix(n.Text, "retrying (attempt") {
			retries++
		}
	}
	if retries < 2 {
		t.Fatalf("expected a retry for the 529 and one for the cut stream, got %d notices", retries)
	}
}

// TestE2EAutoModeClassifier: in auto mode an edit goes to the classifier,
// a side request answered from the scenario's "side" section.
func TestE2EAutoModeClassifier(t *testing.T) {
	for _, tc := range []struct {
		verdict string
		written bool
	}{
		{`{"decision": "allow", "reason": "the user asked for this file"}`, true},
		{`{"decision": "block", "reason": "not requested"}`, false},
		{`looks fine to me`, false},
	} {
		sc := `{"turns": [
			{"tool_calls": [{"id": "w", "name": "write_file", "input": {"file_path": "out.txt", "content": "x\n"}}]},
			{"text": "Done."}
		], "side": {"classifier": ` + string(mustJSON(tc.verdict)) + `}}`
		x := newE2E(t, nil, sc, permission.ModeAuto, nil)
		res := x.run("write out.txt")
		_, err := os.Stat(filepath.Join(x.root, "out.txt"))
		if (err == nil) != tc.written || (len(res.Denials) == 0) != tc.written {
			t.Fatalf("verdict %s: written=%v denials=%+v", tc.verdict, err == nil, res.Denials)
		}
		if !tc.written && !strings.Contains(res.Denials[0].Reason, "auto-mode classifier") {
			t.Fatalf("denial reason = %q", res.Denials[0].Reason)
		}
	}
}
