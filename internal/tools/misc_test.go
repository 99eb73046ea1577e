package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hew-dev/hew/internal/testenv"
)

func TestRunShell(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shell")
	}
	env := testEnv(t)
	env.Env = append(os.Environ(), "HEW_TEST_VAR=42")
	cases := []struct {
		in      map[string]any
		want    []string
		isError bool
	}{
		{map[string]any{"command": "pwd; echo var=$HEW_TEST_VAR"}, []string{env.Root, "var=42", "exit code 0"}, false},
		{map[string]any{"command": "echo oops >&2; exit 4"}, []string{"oops", "exit code 4"}, true},
		{map[string]any{"command": "cat; echo done"}, []string{"done", "exit code 0"}, false},
		{map[string]any{"command": "sleep 5", "timeout": 100}, []string{"timed out after 100ms"}, true},
	}
	for _, tc := range cases {
		res, err := call(t, env, RunShell{runShellSpec}, tc.in)
		if err != nil {
			t.Fatalf("%v: %v", tc.in, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(res.Content, w) {
				t.Errorf("%v: lacks %q in %q", tc.in, w, res.Content)
			}
		}
		if res.IsError != tc.isError {
			t.Errorf("%v: IsError=%v", tc.in, res.IsError)
		}
	}
	if _, err := call(t, env, RunShell{runShellSpec}, map[string]any{"command": "  "}); err == nil || !strings.Contains(err.Error(), "command is empty") {
		t.Errorf("empty command: %v", err)
	}
}

type recordingShell struct{ got ShellRequest }

func (r *recordingShell) Run(_ context.Context, req ShellRequest) (ShellResult, error) {
	r.got = req
	return ShellResult{Output: "sandboxed\n", ExitCode: 0, SandboxNote: "sandbox: landlock"}, nil
}

func TestRunShellUsesEnvShell(t *testing.T) {
	env := testEnv(t)
	sh := &recordingShell{}
	env.Shell = sh
	env.Env = []string{"A=1"}
	res, err := call(t, env, RunShell{runShellSpec}, map[string]any{"command": "make", "timeout": 900})
	if err != nil {
		t.Fatal(err)
	}
	if sh.got.Command != "make" || sh.got.Dir != env.Root || sh.got.TimeoutMS != 900 || len(sh.got.Env) != 1 {
		t.Errorf("request %+v", sh.got)
	}
	if !strings.Contains(res.Content, "sandboxed\nexit code 0\n[sandbox: landlock]") {
		t.Errorf("content %q", res.Content)
	}
	if _, err := call(t, env, RunShell{runShellSpec}, map[string]any{"command": "make"}); err != nil || sh.got.TimeoutMS != 120000 {
		t.Errorf("default timeout %d", sh.got.TimeoutMS)
	}
}

func TestWebFetch(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>T</title><script>evil()</script></head><body><h1>Title</h1><p>Some <b>bold</b> <a href="/rel">link</a>.</p><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table></body></html>`)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain *text*")
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("x", 3000)))
	})
	mux.HandleFunc("/bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte{0x89, 'P', 'N', 'G', 0})
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", http.StatusNotFound) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/text", http.StatusMovedPermanently)
	})
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "other host") }))
	defer other.Close()
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other.URL+"/x", http.StatusFound) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	oldMax := WebFetchMaxBytes
	WebFetchMaxBytes = 1000
	defer func() { WebFetchMaxBytes = oldMax }()

	cases := []struct {
		path    string
		want    []string
		notWant []string
		errWant string
		isError bool
	}{
		{path: "/page", want: []string{"# Title", "**bold**", "[link](" + srv.URL + "/rel)", "| k | v |", "| a | 1 |"}, notWant: []string{"evil", "<p>"}},
		{path: "/text", want: []string{"plain *text*", "Content-Type: text/plain"}},
		{path: "/hop", want: []string{"plain *text*", "Redirected from: " + srv.URL + "/hop"}},
		{path: "/big", want: []string{"[response cut at 1000 bytes]"}, notWant: []string{strings.Repeat("x", 1001)}},
		{path: "/bin", errWant: "not text"},
		{path: "/away", want: []string{"redirects to a different host: " + other.URL + "/x", "not followed"}, notWant: []string{"other host\n"}},
		{path: "/missing", want: []string{"404"}, isError: true},
		{path: "/loop", errWant: "stopped after 5 redirects"},
	}
	env := testEnv(t)
	for _, tc := range cases {
		res, err := call(t, env, WebFetch{webFetchSpec}, map[string]any{"url": srv.URL + tc.path})
		if tc.errWant != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errWant) {
				t.Errorf("%s: err %v, want %q", tc.path, err, tc.errWant)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(res.Content, w) {
				t.Errorf("%s: lacks %q in\n%s", tc.path, w, res.Content)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(res.Content, w) {
				t.Errorf("%s: has %q", tc.path, w)
			}
		}
		if res.IsError != tc.isError {
			t.Errorf("%s: IsError %v", tc.path, res.IsError)
		}
	}
	for _, bad := range []string{"file:///etc/passwd", "ftp://x/y", "/relative", "http://"} {
		if _, err := call(t, env, WebFetch{webFetchSpec}, map[string]any{"url": bad}); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestTodoWrite(t *testing.T) {
	in := map[string]any{"todos": []map[string]any{
		{"content": "read code", "status": "completed"},
		{"content": "fix bug", "status": "in_progress"},
		{"content": "run tests", "status": "pending"},
	}}
	res, err := call(t, nil, TodoWrite{todoWriteSpec}, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Todos) != 3 || res.Todos[1] != (Todo{"fix bug", "in_progress"}) {
		t.Errorf("todos %+v", res.Todos)
	}
	if !strings.Contains(res.Content, "3 items (1 completed, 1 in progress, 1 pending)") || !strings.Contains(res.Content, "[~] fix bug") {
		t.Errorf("content %q", res.Content)
	}
	if _, err := call(t, nil, TodoWrite{todoWriteSpec}, map[string]any{"todos": []map[string]any{{"content": "x", "status": "done"}}}); err == nil {
		t.Error("bad status accepted")
	}
	if _, err := call(t, nil, TodoWrite{todoWriteSpec}, map[string]any{"todos": []map[string]any{{"content": " ", "status": "pending"}}}); err == nil || !strings.Contains(err.Error(), "empty content") {
		t.Errorf("blank item: %v", err)
	}
}

func TestToolSearch(t *testing.T) {
	r := NewRegistry()
	RegisterBuiltins(r)
	r.Register(fakeTool{name: "enter_plan_mode", desc: "Switch to plan mode: explore read-only and write a plan.", schema: `{"type":"object"}`, deferred: true})
	r.Register(fakeTool{name: "exit_plan_mode", desc: "Present the plan for approval.", schema: `{"type":"object","properties":{"plan":{"type":"string"}},"required":["plan"]}`, deferred: true})
	ts, _ := r.Get("tool_search")
	before, _ := json.Marshal(r.Specs())

	res, err := call(t, nil, ts, map[string]any{"query": "plan approval"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content, "exit_plan_mode: Present the plan") || !strings.Contains(res.Content, "enter_plan_mode") {
		t.Errorf("search: %q", res.Content)
	}
	if r.Visible("exit_plan_mode") {
		t.Error("search alone activated a tool")
	}
	res, err = call(t, nil, ts, map[string]any{"query": "select:exit_plan_mode, nope"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Visible("exit_plan_mode") || !strings.Contains(res.Content, `"name":"exit_plan_mode"`) || !strings.Contains(res.Content, `"required":["plan"]`) || !strings.Contains(res.Content, `Not found: "nope"`) {
		t.Errorf("select: %q", res.Content)
	}
	after, _ := json.Marshal(r.Specs())
	if !strings.HasPrefix(string(after), strings.TrimSuffix(string(before), "]")) {
		t.Error("activation changed earlier tool bytes instead of appending")
	}
	if _, err := call(t, nil, ts, map[string]any{"query": "select:missing"}); err == nil {
		t.Error("selecting an unknown tool succeeded")
	}
	res, _ = call(t, nil, ts, map[string]any{"query": "database"})
	if !strings.Contains(res.Content, "No deferred tool matches") || !strings.Contains(res.Content, "enter_plan_mode") {
		t.Errorf("no match: %q", res.Content)
	}
}

func TestShape(t *testing.T) {
	state := t.TempDir()
	small := "short result"
	if got := Shape(small, ShapeOptions{StateDir: state, ID: "a"}); got != small {
		t.Errorf("small changed: %q", got)
	}
	mid := strings.Repeat("mid line of output\n", 2000) // ~38 KB: persisted, not cut
	got := Shape(mid, ShapeOptions{StateDir: state, ID: "toolu_mid"})
	if !strings.HasPrefix(got, mid) || !strings.Contains(got, filepath.Join(state, "tool-results", "toolu_mid.txt")) {
		t.Errorf("mid: %.100q", got[len(got)-200:])
	}
	var b strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&b, "line %05d ünïcode\n", i)
	}
	big := b.String()
	got = Shape(big, ShapeOptions{StateDir: state, ID: "toolu/../big"})
	if n := utf8.RuneCountInString(got); n > DefaultMaxChars {
		t.Errorf("shaped to %d chars", n)
	}
	if !strings.HasPrefix(got, "line 00001") || !strings.HasSuffix(got, "line 20000 ünïcode\n") || !utf8.ValidString(got) {
		t.Error("head or tail lost")
	}
	saved := filepath.Join(state, "tool-results", "toolu_.._big.txt")
	if data, err := os.ReadFile(saved); err != nil || string(data) != big {
		t.Fatalf("persisted copy: %v", err)
	}
	if !strings.Contains(got, saved) || !strings.Contains(got, "characters cut here") {
		t.Fatalf("marker lacks path: %s", got[24000:26000])
	}
	// The marker's offset/limit recover exactly the missing lines via read_file.
	var off, lim int
	i := strings.Index(got, "offset=")
	fmt.Sscanf(got[i:], "offset=%d, limit=%d", &off, &lim)
	env := &Env{Root: t.TempDir(), StateDir: state, Reads: NewReadTracker()}
	res, err := call(t, env, ReadFile{readFileSpec}, map[string]any{"file_path": saved, "offset": off, "limit": lim})
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	head := got[:strings.Index(got, "\n[… ")]
	lastHead := strings.Count(head, "\n")
	if off != lastHead+1 || !strings.Contains(res.Content, fmt.Sprintf("%6d\tline %05d", off, off)) {
		t.Errorf("offset %d does not follow the head (%d lines)", off, lastHead)
	}
	tailFirst := 0
	fmt.Sscanf(got[strings.Index(got, "]\n\n")+3:], "line %d", &tailFirst)
	if off+lim != tailFirst {
		t.Errorf("offset %d + limit %d != first tail line %d", off, lim, tailFirst)
	}
	// One enormous line cannot be read back in parts: the marker says to search.
	if got := Shape(strings.Repeat("x", 200000), ShapeOptions{StateDir: state, ID: "oneline"}); !strings.Contains(got, "search it with grep_search") {
		t.Error("no hint for very long lines")
	}
	// Without a state dir the cut still says so.
	if got := Shape(big, ShapeOptions{}); !strings.Contains(got, "no state directory") {
		t.Error("missing note about unsaved output")
	}
}

func TestSummarize(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"read_file", `{"file_path":"main.go"}`, "read_file(main.go)"},
		{"read_file", `{"file_path":"main.go","offset":10,"limit":5}`, "read_file(main.go:10-14)"},
		{"run_shell", `{"command":"go test ./...","description":"tests"}`, "run_shell(go test ./...)"},
		{"run_shell", `{"command":"echo a\necho b"}`, "run_shell(echo a ⏎ echo b)"},
		{"grep_search", `{"pattern":"func main","path":"cmd","glob":"*.go"}`, "grep_search(func main in cmd *.go)"},
		{"list_files", `{}`, "list_files()"},
		{"todo_write", `{"todos":[{},{}]}`, "todo_write(2 items)"},
		{"mcp__db__query", `{"sql":"select 1"}`, "mcp__db__query(select 1)"},
		{"mcp__fs__write", `{"content":"x","path":"a.txt"}`, "mcp__fs__write(a.txt)"},
		{"edit_file", `not json`, "edit_file()"},
	}
	reg := NewRegistry()
	RegisterBuiltins(reg)
	for _, tc := range cases {
		tool, _ := reg.Get(tc.name)
		if got := Summarize(tool, tc.name, json.RawMessage(tc.in)); got != tc.want {
			t.Errorf("Summarize(%s, %s) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
	long := Summarize(RunShell{runShellSpec}, "run_shell", mustJSON(t, map[string]string{"command": strings.Repeat("日本語", 50)}))
	if !utf8.ValidString(long) || !strings.HasSuffix(long, "…)") || utf8.RuneCountInString(long) != len("run_shell()")+SummaryMaxRunes {
		t.Errorf("long summary %q", long)
	}
}

// Approval questions show the exact operation and, for edits, the diff.
func TestSubjectAndPreview(t *testing.T) {
	env := testEnv(t)
	if err := os.WriteFile(filepath.Join(env.Root, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool          Tool
		in            string
		subject, diff string
	}{
		{RunShell{runShellSpec}, `{"command":"make clean","description":"x"}`, "make clean", ""},
		{WebFetch{webFetchSpec}, `{"url":"https://example.com"}`, "https://example.com", ""},
		{EditFile{editFileSpec}, `{"file_path":"a.txt","old_string":"old","new_string":"new"}`, "a.txt", "+new"},
		{WriteFile{writeFileSpec}, `{"file_path":"a.txt","content":"fresh"}`, "a.txt", "-old"},
		{nil, `{"path":"src","other":1}`, "src", ""},
		{nil, `{"n":1}`, `{"n":1}`, ""},
	} {
		in := json.RawMessage(tc.in)
		if got := SubjectOf(tc.tool, in); got != tc.subject {
			t.Errorf("SubjectOf(%T, %s) = %q, want %q", tc.tool, tc.in, got, tc.subject)
		}
		if got := PreviewOf(tc.tool, env, in); !strings.Contains(got, tc.diff) || (tc.diff == "") != (got == "") {
			t.Errorf("PreviewOf(%T, %s) = %q, want it to contain %q", tc.tool, tc.in, got, tc.diff)
		}
	}
}

func BenchmarkShapeLarge(b *testing.B) {
	content := strings.Repeat("some tool output line with text\n", 10000)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		Shape(content, ShapeOptions{StateDir: dir, ID: "bench"})
	}
}

// Output over the old 1 MiB capture is saved whole, streamed as the command
// runs, while the model gets head and tail with the path; two sessions
// using the same call id write different files (issue 12.5).
func TestRunShellStreamsWholeOutputToResultFile(t *testing.T) {
	testenv.Tool(t, "bash")
	env := testEnv(t)
	cmd := map[string]any{"command": "seq 1 400000"} // 2.7 MB
	var want strings.Builder
	for i := 1; i <= 400000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	paths := map[string]bool{}
	for _, session := range []string{"sessA", "sessB"} {
		env.SessionID = session
		in, _ := json.Marshal(cmd)
		res, err := RunShell{runShellSpec}.Run(WithCallID(context.Background(), "call_0"), env, in)
		if err != nil {
			t.Fatal(err)
		}
		if res.SavedAt == "" || !strings.Contains(res.Content, res.SavedAt) {
			t.Fatalf("no saved path in result: %q", res.Content[len(res.Content)-400:])
		}
		if len(res.Content) > DefaultMaxChars {
			t.Errorf("context gets %d bytes, more than %d", len(res.Content), DefaultMaxChars)
		}
		for _, w := range []string{"\n1\n2\n", "\n400000\n", "exit code 0", fmt.Sprintf("(%d bytes)", want.Len())} {
			if !strings.Contains("\n"+res.Content, w) {
				t.Errorf("result lacks %q", w)
			}
		}
		got, err := os.ReadFile(res.SavedAt)
		if err != nil || string(got) != want.String() {
			t.Fatalf("saved file is not the whole output: %d bytes, want %d (%v)", len(got), want.Len(), err)
		}
		paths[res.SavedAt] = true
		// The offset named in the result is where the left-out part begins.
		if !strings.Contains(res.Content, "offset=") {
			t.Errorf("no offset to read the left-out part: %q", res.Content)
		}
	}
	if len(paths) != 2 {
		t.Errorf("two sessions shared one result file: %v", paths)
	}
	// A small output leaves no file behind.
	in, _ := json.Marshal(map[string]any{"command": "echo small"})
	res, err := RunShell{runShellSpec}.Run(WithCallID(context.Background(), "call_1"), env, in)
	if err != nil || res.SavedAt != "" {
		t.Fatalf("small output: %v %+v", err, res)
	}
	if _, err := os.Stat(ToolResultPath(env.StateDir, ResultID(env.SessionID, "call_1"))); err == nil {
		t.Error("small output left a result file")
	}
}
