package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/session"
)

func runMain(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"hew"}, args...), strings.NewReader(""), &out, &errb, env)
	return code, out.String(), errb.String()
}

func TestMainVersionAndUsage(t *testing.T) {
	code, out, _ := runMain(t, nil, "--version")
	if code != 0 || !strings.HasPrefix(out, "hew ") {
		t.Errorf("--version: %d %q", code, out)
	}
	if code, out, _ := runMain(t, nil, "version"); code != 0 || !strings.HasPrefix(out, "hew ") {
		t.Errorf("version: %d %q", code, out)
	}
	if code, _, errOut := runMain(t, nil, "--max-turns", "x"); code != ExitUsage || !strings.Contains(errOut, "max-turns") {
		t.Errorf("bad flag value: %d %q", code, errOut)
	}
	// The format names are checked by the headless front-end, as usage errors.
	for args, want := range map[[4]string]string{
		{"--output-format", "xml", "-p", "x"}:        "unknown --output-format",
		{"--input-format", "xml", "-p", "x"}:         "unknown --input-format",
		{"--input-format", "stream-json", "-p", "x"}: "needs --output-format stream-json",
	} {
		if code, _, errOut := runMain(t, nil, args[:]...); code != ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("%v: %d %q, want %q", args, code, errOut, want)
		}
	}
	if code, out, _ := runMain(t, nil, "help", "doctor"); code != 0 || !strings.Contains(out, "usage: hew doctor") {
		t.Errorf("help doctor: %d %q", code, out)
	}
	if code, out, _ := runMain(t, nil, "help"); code != 0 || !strings.Contains(out, "Commands:") {
		t.Errorf("help: %d %q", code, out)
	}
}

func TestMainMissingKeyIsUsageError(t *testing.T) {
	t.Chdir(t.TempDir())
	env := []string{"HEW_HOME=" + t.TempDir(), "HOME=" + t.TempDir()}
	code, out, errOut := runMain(t, env, "-p", "hello")
	if code != ExitUsage || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AGENT_API_KEY", "HEW_PROVIDER", "--mock"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %s:\n%s", want, errOut)
		}
	}
}

// An in-process headless run with the mock: the wiring end to end without
// building the binary.
func TestMainHeadlessMockInProcess(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("greeting.txt", []byte("hi there\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	code, out, errOut := runMain(t, []string{"HEW_HOME=" + home, "HOME=" + t.TempDir()}, "--mock", "-p", "--output-format", "json", "read greeting.txt")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	if res["stop_reason"] != "completed" || !strings.Contains(res["result"].(string), "hi there") {
		t.Errorf("result = %v", res)
	}
	root, _ := filepath.EvalSymlinks(dir)
	files, _ := filepath.Glob(filepath.Join(session.Dir(home, root), "*.jsonl"))
	if len(files) != 1 || filepath.Base(files[0]) != res["session_id"].(string)+".jsonl" {
		t.Errorf("session files %v for id %v", files, res["session_id"])
	}
}

func TestExitCode(t *testing.T) {
	for stop, want := range map[agent.StopReason]int{
		agent.StopCompleted: 0, agent.StopGoalMet: 0, agent.StopMaxTurns: 3, agent.StopMaxBudget: 3,
		agent.StopAborted: 130, agent.StopError: 1, agent.StopGoalImpossible: 1, "": 1,
	} {
		if got := exitCode(agent.TurnResult{StopReason: stop}); got != want {
			t.Errorf("exitCode(%q) = %d, want %d", stop, got, want)
		}
	}
}
