package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	hewsandbox "github.com/hew-dev/hew/internal/sandbox"
	"github.com/hew-dev/hew/internal/testenv"
)

// Headless under the allowlist sandbox (even with --yolo): an unknown
// domain and a denied one are refused by the proxy before any name is
// resolved, listed in permission_denials with the domain, and explained in
// the tool result; a write outside the project is blocked and explained;
// --no-sandbox lifts both.
func TestSandboxNetworkAndWritesHeadless(t *testing.T) {
	t.Parallel()
	if ok, why := hewsandbox.Available(); !ok {
		testenv.Missing(t, "Landlock: "+why)
	}
	curl := testenv.Tool(t, "curl")
	s := newSandbox(t, false)
	tmp, outside := filepath.Join(filepath.Dir(s.proj), "tmp"), filepath.Join(filepath.Dir(s.proj), "outside")
	for _, d := range []string{tmp, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.write(".hew/settings.json", `{"sandbox": {"deniedDomains": ["blocked.test"]}}`)
	target := filepath.Join(outside, "escaped.txt")
	sc := s.scenario("net.json", `{"turns": [
 {"text": "fetch", "tool_calls": [{"name": "run_shell", "input": {"command": "`+curl+` -sS --max-time 5 https://unknown.test/a; `+curl+` -sS --max-time 5 https://blocked.test/b; echo fetched"}}]},
 {"text": "write", "tool_calls": [{"name": "run_shell", "input": {"command": "echo x > `+target+`"}}]},
 {"text": "done"}
]}`)
	env := []string{"HEW_MOCK_SCRIPT=" + sc, "TMPDIR=" + tmp}
	r := s.run(env, "-p", "--mock", "--yolo", "--output-format", "stream-json", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	evs := events(t, r.stdout)
	results := ofType(evs, "tool_result")
	if len(results) != 2 {
		t.Fatalf("tool results: %v", results)
	}
	net, write := results[0]["content"].(string), results[1]["content"].(string)
	for _, want := range []string{"unknown.test was refused by hew's network proxy", `add \"unknown.test\" to \"sandbox.allowedDomains\"`, "blocked.test", "deniedDomains"} {
		if !strings.Contains(strings.ReplaceAll(net, `"`, `\"`), want) {
			t.Errorf("network result lacks %q:\n%s", want, net)
		}
	}
	if !strings.Contains(write, "was blocked") || !strings.Contains(write, outside) || !strings.Contains(write, "--no-sandbox") {
		t.Errorf("write result:\n%s", write)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the write outside the project went through")
	}
	last := evs[len(evs)-1]
	denials, _ := last["permission_denials"].([]any)
	var domains []string
	for _, d := range denials {
		in, _ := d.(map[string]any)["input"].(map[string]any)
		if dom, ok := in["domain"].(string); ok {
			domains = append(domains, dom)
		}
	}
	if strings.Join(domains, ",") != "unknown.test,blocked.test" {
		t.Errorf("permission_denials %v", denials)
	}
	// Each refusal is also streamed as it happens, as a permission_denial
	// line of the call, before that call's tool_result.
	var streamed []string
	for _, e := range evs {
		if e["type"] == "tool_result" && e["id"] == results[0]["id"] {
			break
		}
		if e["type"] == "permission_denial" && e["id"] == results[0]["id"] && e["tool"] == "run_shell" {
			streamed = append(streamed, e["reason"].(string))
		}
	}
	if len(streamed) != 2 || !strings.Contains(streamed[0], "unknown.test") || !strings.Contains(streamed[1], "blocked.test") {
		t.Errorf("permission_denial lines before the tool_result: %q", streamed)
	}
	if strings.Count(r.stderr+r.stdout, "the sandbox refused") != 1 {
		t.Errorf("want exactly one user notice about the sandbox, stderr:\n%s", r.stderr)
	}
	// --no-sandbox: the write goes through and no proxy variables are set.
	sc2 := s.scenario("nosb.json", `{"turns": [
 {"text": "write", "tool_calls": [{"name": "run_shell", "input": {"command": "echo x > `+target+` && echo proxy=${HTTPS_PROXY:-none}"}}]},
 {"text": "done"}
]}`)
	r = s.run([]string{"HEW_MOCK_SCRIPT=" + sc2, "TMPDIR=" + tmp}, "-p", "--mock", "--yolo", "--no-sandbox", "--output-format", "stream-json", "go")
	res := ofType(events(t, r.stdout), "tool_result")
	if r.code != 0 || len(res) != 1 || !strings.Contains(res[0]["content"].(string), "proxy=none") {
		t.Fatalf("--no-sandbox run: %d %v\n%s", r.code, res, r.stderr)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("--no-sandbox write: %v", err)
	}
	if !strings.Contains(r.stderr+r.stdout, "sandbox off (--no-sandbox)") {
		t.Errorf("no notice that the sandbox is off:\n%s", r.stderr)
	}
}
