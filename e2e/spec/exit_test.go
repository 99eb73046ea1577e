package spec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// threeRoundTrips is a scenario whose task needs four model requests.
const threeRoundTrips = `{"turns":[
 {"text":"one","tool_calls":[{"name":"read_file","input":{"file_path":"a.txt"}}]},
 {"text":"two","tool_calls":[{"name":"list_files","input":{}}]},
 {"text":"three","tool_calls":[{"name":"grep_search","input":{"pattern":"alpha"}}]},
 {"text":"all done"}]}`

// SPEC section 1 exit codes and section 6 stop reasons, for the in-process
// mock and for both wire protocols through hew mock-server.
func TestExitCodesAndStopReasons(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scenario string
		args     []string
		code     int
		stop     string
	}{
		{"completed", threeRoundTrips, nil, 0, "completed"},
		{"max-turns", threeRoundTrips, []string{"--max-turns", "2"}, 3, "max_turns"},
		{"max-budget-tokens", threeRoundTrips, []string{"--max-budget-tokens", "50"}, 3, "max_budget"},
		{"api error 400", `{"turns":[{"error":{"status":400}}]}`, nil, 1, "error"},
		{"529 retried", `{"turns":[{"error":{"status":529}},{"text":"recovered"}]}`, nil, 0, "completed"},
		{"max_tokens recovered", `{"turns":[{"text":"cut off","stop_reason":"max_tokens"},{"text":"whole answer"}]}`, nil, 0, "completed"},
	} {
		for _, via := range []string{"mock", "anthropic", "openai"} {
			t.Run(tc.name+"/"+via, func(t *testing.T) {
				w := newWorld(t)
				w.write("a.txt", "alpha\n")
				var env []string
				switch via {
				case "mock":
					env = append(w.mockEnv(tc.scenario), "HEW_PROVIDER=mock")
				case "anthropic":
					env = w.startMock(tc.scenario).anthropicEnv()
				case "openai":
					env = w.startMock(tc.scenario).openaiEnv()
				}
				args := append(append([]string{"-p", "--output-format", "stream-json"}, tc.args...), "go")
				r := w.hewEnv(env, args...)
				res := lastResult(t, r)
				if r.code != tc.code || res.str("stop_reason") != tc.stop {
					t.Fatalf("exit %d stop_reason %q, want exit %d stop_reason %q\n%s", r.code, res.str("stop_reason"), tc.code, tc.stop, r)
				}
			})
		}
	}
}

func TestMaxTurnsCountsRoundTrips(t *testing.T) {
	w := newWorld(t)
	w.write("a.txt", "alpha\n")
	r := w.hewEnv(w.mockEnv(threeRoundTrips), "-p", "--mock", "--output-format", "json", "--max-turns", "2", "go")
	res := jsonResult(t, r)
	if n, _ := res["num_turns"].(float64); n != 2 {
		t.Fatalf("num_turns = %v, want 2 with --max-turns 2\n%s", res["num_turns"], r)
	}
	if r.code != 3 {
		t.Fatalf("exit %d, want 3", r.code)
	}
}

// --max-cost-usd needs a priced model: the anthropic default through the mock server.
func TestMaxCostExit3(t *testing.T) {
	w := newWorld(t)
	w.write("a.txt", "alpha\n")
	ms := w.startMock(threeRoundTrips)
	r := w.hewEnv(ms.anthropicEnv(), "-p", "--output-format", "json", "--model", "claude-sonnet-4-5", "--max-cost-usd", "0.000001", "go")
	res := jsonResult(t, r)
	if r.code != 3 || res.str("stop_reason") != "max_budget" {
		t.Fatalf("exit %d stop_reason %q, want 3 and max_budget\n%s", r.code, res.str("stop_reason"), r)
	}
	if c, _ := res["cost_usd"].(float64); c <= 0 {
		t.Fatalf("cost_usd = %v, want a positive estimate for a priced model", res["cost_usd"])
	}
}

// SIGINT during a run: the run ends with stop_reason aborted and exit 130,
// the running shell command is killed, and the result line is still written.
func TestInterruptExit130(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not on PATH")
	}
	w := newWorld(t)
	sc := `{"turns":[{"text":"waiting","tool_calls":[{"name":"run_shell","input":{"command":"echo $$ > shell.pid; exec sleep 30"}}]},{"text":"done"}]}`
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, hewBin, "-p", "--mock", "--yolo", "--output-format", "stream-json", "go")
	cmd.Dir = w.proj
	cmd.Env = append(append([]string{}, w.env...), w.mockEnv(sc)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	var lines []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before the tool started: %v\n%s\n%s", err, strings.Join(lines, ""), stderr.String())
		}
		lines = append(lines, line)
		var e event
		_ = json.Unmarshal([]byte(line), &e)
		if e.str("type") == "tool_use" {
			break
		}
	}
	// Wait until the command runs (it writes its pid first).
	for i := 0; ; i++ {
		if b, err := os.ReadFile(w.proj + "/shell.pid"); err == nil && strings.HasSuffix(string(b), "\n") {
			break
		}
		if i == 300 {
			t.Fatalf("the shell command never started\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(br)
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	out := strings.Join(lines, "") + string(rest)
	r := run{stdout: out, stderr: stderr.String(), code: code}
	if code != 130 {
		t.Fatalf("exit %d after SIGINT, want 130\n%s", code, r)
	}
	res := lastResult(t, r)
	if res.str("stop_reason") != "aborted" {
		t.Fatalf("stop_reason %q, want aborted\n%s", res.str("stop_reason"), r)
	}
	// Pairing: the interrupted call still got its result.
	if len(ofType(events(t, r), "tool_result")) != 1 {
		t.Fatalf("the interrupted tool call has no tool_result\n%s", r)
	}
	// The shell (exec'd into sleep) must be gone: killed, not orphaned.
	pid, err := strconv.Atoi(strings.TrimSpace(w.read("shell.pid")))
	if err != nil {
		t.Fatalf("shell.pid: %v", err)
	}
	for i := 0; ; i++ {
		if !alive(pid) {
			break
		}
		if i == 100 {
			t.Fatalf("the shell command (pid %d) still runs after hew exited on SIGINT", pid)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// alive reports whether pid names a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil && !procfs()
	}
	// Field 3 of /proc/PID/stat is the state; Z is a zombie.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func procfs() bool { _, err := os.Stat("/proc/self/stat"); return err == nil }
