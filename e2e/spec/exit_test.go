package spec

import (
	"strings"
	"testing"
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
		{"529 four times: error after 3 retries", `{"turns":[{"error":{"status":529}},{"error":{"status":529}},{"error":{"status":529}},{"error":{"status":529}},{"text":"too late"}]}`, nil, 1, "error"},
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

// A broken scenario file is bad config: exit 2 naming the variable.
func TestBadMockScript(t *testing.T) {
	w := newWorld(t)
	bad := w.write("bad-scenario.json", "{bad")
	for _, path := range []string{bad, bad + ".missing"} {
		r := w.hewEnv([]string{"HEW_MOCK_SCRIPT=" + path}, "-p", "--mock", "go")
		if r.code != 2 || !strings.Contains(r.stderr, "HEW_MOCK_SCRIPT") {
			t.Errorf("HEW_MOCK_SCRIPT=%s: exit %d, want 2 naming the variable\n%s", path, r.code, r)
		}
	}
}
