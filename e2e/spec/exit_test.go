package spec

import (
	"fmt"
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
		{"stream cut retried", `{"turns":[{"text":"The quick brown fox jumps over the lazy dog.","chunk_size":5,"cut_after_chunks":3,"cut_times":1}]}`, nil, 0, "completed"},
		{"529 retried", `{"turns":[{"error":{"status":529}},{"text":"recovered"}]}`, nil, 0, "completed"},
		{"max_tokens recovered", `{"turns":[{"text":"cut off","stop_reason":"max_tokens"},{"text":"whole answer"}]}`, nil, 0, "completed"},
	} {
		for _, via := range []string{"mock", "anthropic", "openai"} {
			t.Run(tc.name+"/"+via, func(t *testing.T) {
				t.Parallel() // the HTTP retries wait out real backoff
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
				if r.code != tc.code || res.str("stop_reason") != tc.stop || (tc.name == "stream cut retried" && res.str("result") != "The quick brown fox jumps over the lazy dog.") {
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

// SPEC §1: --max-budget-tokens is a hard stop for the run, sub-agents
// included; §6: the result's usage counts the sub-agent's tokens.
func TestSubAgentCountsTowardsBudget(t *testing.T) {
	w := newWorld(t)
	w.write("f.txt", "aaa\n")
	sc := `{"turns":[{"text":"delegating","tool_calls":[{"name":"agent","input":{"description":"read f","prompt":"read f.txt and report"}}]},
	  {"text":"sub: reading","tool_calls":[{"name":"read_file","input":{"file_path":"f.txt"}}]},
	  {"text":"SUB-REPORT: f has aaa"},{"text":"main done"}]}`
	r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--output-format", "json", "go")
	res := jsonResult(t, r)
	usage := res["usage"].(map[string]any)
	total := usage["input_tokens"].(float64) + usage["output_tokens"].(float64)
	// Two main requests and two sub-agent requests: each carries the
	// ~3,000-token system prompt and tools.
	if total < 4*2500 {
		t.Errorf("usage %v leaves out the sub-agent's requests", usage)
	}
	// 60% of the total lies between the first main request and the first
	// request plus the sub-agent: the run must stop before its second round.
	r = w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--output-format", "json", "--max-budget-tokens", fmt.Sprint(int(total*0.6)), "go")
	if res := jsonResult(t, r); res.str("stop_reason") != "max_budget" || r.code != 3 {
		t.Errorf("budget below the run's total: stop_reason %q exit %d, want max_budget and 3", res.str("stop_reason"), r.code)
	}
}
