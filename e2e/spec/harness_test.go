package spec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/testenv"
)

// hewBin is the binary under test, built once by TestMain.
var hewBin string

func TestMain(m *testing.M) { os.Exit(testenv.MainWithHew(m, &hewBin, false)) }

// world is one test's surroundings: a project directory, its own HEW_HOME
// and HOME, and an environment stripped of every provider variable so that
// nothing on the host decides what the test sees.
type world struct {
	t    *testing.T
	proj string // the working directory hew starts in
	home string // HEW_HOME
	user string // HOME
	env  []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, proj: filepath.Join(base, "proj"), home: filepath.Join(base, "hewhome"), user: filepath.Join(base, "user")}
	for _, d := range []string{w.proj, w.home, w.user} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "HEW_"), strings.HasPrefix(k, "ANTHROPIC_"), strings.HasPrefix(k, "OPENAI_"),
			strings.HasPrefix(k, "AGENT_"), k == "HOME", k == "NO_COLOR":
			continue
		}
		w.env = append(w.env, kv)
	}
	w.env = append(w.env, "HEW_HOME="+w.home, "HOME="+w.user, "NO_COLOR=1")
	return w
}

// write creates a file under the project (or at an absolute path).
func (w *world) write(rel, content string) string {
	w.t.Helper()
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.proj, rel)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
	return p
}

func (w *world) read(rel string) string {
	w.t.Helper()
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.proj, rel)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

// scenario writes a scenario file and returns its path.
func (w *world) scenario(js string) string {
	w.t.Helper()
	if !json.Valid([]byte(js)) {
		w.t.Fatalf("test scenario is not valid JSON: %s", js)
	}
	f, err := os.CreateTemp(filepath.Dir(w.home), "scenario-*.json")
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(js); err != nil {
		w.t.Fatal(err)
	}
	return f.Name()
}

// run is one finished hew process.
type run struct {
	stdout, stderr string
	code           int
}

// call describes one hew invocation.
type call struct {
	args  []string
	env   []string // added to the world's environment
	dir   string   // default: the project
	stdin string
}

func (w *world) hew(args ...string) run {
	w.t.Helper()
	return w.exec(call{args: args})
}

func (w *world) hewEnv(env []string, args ...string) run {
	w.t.Helper()
	return w.exec(call{args: args, env: env})
}

func (w *world) exec(c call) run {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, hewBin, c.args...)
	cmd.Dir = w.proj
	if c.dir != "" {
		cmd.Dir = c.dir
	}
	cmd.Env = append(append([]string{}, w.env...), c.env...)
	cmd.Stdin = strings.NewReader(c.stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := run{stdout: out.String(), stderr: errb.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			w.t.Fatalf("running hew %q: %v", c.args, err)
		}
		r.code = ee.ExitCode()
	}
	if ctx.Err() != nil {
		w.t.Fatalf("hew %q did not finish: stdout %s stderr %s", c.args, r.stdout, r.stderr)
	}
	return r
}

func (r run) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s\n--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// event is one stream-json line.
type event map[string]any

func (e event) str(k string) string { s, _ := e[k].(string); return s }

// events parses stream-json output: every non-empty line must be a JSON
// object with a "type".
func events(t *testing.T, r run) []event {
	t.Helper()
	var evs []event
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("stream-json line is not a JSON object: %q (%v)\n%s", line, err, r)
		}
		if e.str("type") == "" {
			t.Fatalf("stream-json line without \"type\": %q", line)
		}
		evs = append(evs, e)
	}
	return evs
}

func ofType(evs []event, typ string) []event {
	var out []event
	for _, e := range evs {
		if e.str("type") == typ {
			out = append(out, e)
		}
	}
	return out
}

// lastResult returns the final result event and checks it is the last line.
func lastResult(t *testing.T, r run) event {
	t.Helper()
	evs := events(t, r)
	if len(evs) == 0 {
		t.Fatalf("no events:\n%s", r)
	}
	last := evs[len(evs)-1]
	if last.str("type") != "result" {
		t.Fatalf("last line is %q, want the result object:\n%s", last.str("type"), r)
	}
	return last
}

// jsonResult parses `--output-format json` output: exactly one object.
func jsonResult(t *testing.T, r run) event {
	t.Helper()
	out := strings.TrimSpace(r.stdout)
	dec := json.NewDecoder(strings.NewReader(out))
	var e event
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("json output is not an object: %v\n%s", err, r)
	}
	if dec.More() {
		t.Fatalf("json output holds more than the result object:\n%s", r)
	}
	if e.str("type") != "result" {
		t.Fatalf("json output type = %q, want result", e.str("type"))
	}
	return e
}

// mockServer is a running `hew mock-server`, fronted by a recording proxy so
// tests can see exactly what hew sent.
type mockServer struct {
	addr string // the mock-server's own base address (http://host:port)
	mu   sync.Mutex
	reqs []recorded
	// via is the recording proxy's base address.
	via string
}

type recorded struct {
	path string
	body map[string]any
	size int // bytes of the request body as sent
}

// startMock runs `hew mock-server` with the scenario (empty: no scenario,
// the mock's plain intents) and a recording proxy in front of it.
func (w *world) startMock(scenarioJSON string) *mockServer {
	w.t.Helper()
	args := []string{"mock-server", "--quiet"}
	if scenarioJSON != "" {
		args = append(args, "--scenario", w.scenario(scenarioJSON))
	}
	cmd := exec.Command(hewBin, args...)
	cmd.Env = w.env
	cmd.Dir = w.proj
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	first := make(chan string, 1)
	go func() {
		br := bufio.NewReader(stdout)
		line, _ := br.ReadString('\n')
		first <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, br)
	}()
	var addr string
	select {
	case addr = <-first:
	case <-time.After(20 * time.Second):
		w.t.Fatal("hew mock-server printed no address")
	}
	u, err := url.Parse(addr)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		w.t.Fatalf("hew mock-server's first line is not an http address: %q", addr)
	}
	ms := &mockServer{addr: addr}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		ms.mu.Lock()
		ms.reqs = append(ms.reqs, recorded{path: r.URL.Path, body: body, size: len(b)})
		ms.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		proxy.ServeHTTP(rw, r)
	}))
	w.t.Cleanup(srv.Close)
	ms.via = srv.URL
	return ms
}

// requests returns what reached the server so far.
func (ms *mockServer) requests() []recorded {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return append([]recorded(nil), ms.reqs...)
}

// anthropicEnv / openaiEnv point hew at the recording proxy the way the
// vendors' SDK conventions say (SPEC section 2).
func (ms *mockServer) anthropicEnv() []string {
	return []string{"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=" + ms.via}
}

func (ms *mockServer) openaiEnv() []string {
	return []string{"OPENAI_API_KEY=test-key", "OPENAI_BASE_URL=" + ms.via + "/v1"}
}

// mockEnv runs the in-process mock provider with a scenario.
func (w *world) mockEnv(scenarioJSON string) []string {
	return []string{"HEW_MOCK_SCRIPT=" + w.scenario(scenarioJSON)}
}

// toolNames returns the names in an init event's tools list.
func toolNames(e event) []string {
	var names []string
	list, _ := e["tools"].([]any)
	for _, v := range list {
		switch x := v.(type) {
		case string:
			names = append(names, x)
		case map[string]any:
			if n, ok := x["name"].(string); ok {
				names = append(names, n)
			}
		}
	}
	return names
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func readFileErr(w *world, rel string) (string, error) {
	b, err := os.ReadFile(filepath.Join(w.proj, rel))
	return string(b), err
}
