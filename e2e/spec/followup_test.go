package spec

// Conformance tests for behaviour fixed after the first audit: each asserts
// SPEC.md or issue behaviour that once disagreed.

import (
	"regexp"
	"testing"
)

// SPEC §1: `permissions check TOOL JSON_INPUT` — a missing JSON_INPUT is
// bad usage (exit 2), not an empty input.
func TestPermissionsCheckNeedsInput(t *testing.T) {
	w := newWorld(t)
	if r := w.hew("permissions", "check", "read_file"); r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r)
	}
}

// Issue 5: an invalid rule in a settings file is reported with file,
// position and reason.
func TestInvalidRulePosition(t *testing.T) {
	w := newWorld(t)
	w.write(".hew/settings.json", "{\n \"permissions\": {\n  \"allow\": [\n   \"Bash(\"\n  ]\n }\n}\n")
	r := w.hew("-p", "--mock", "hi")
	if r.code != 2 || !regexp.MustCompile(`settings\.json:4:\d+`).MatchString(r.stderr) {
		t.Fatalf("want exit 2 and settings.json:4:COL in the message\n%s", r)
	}
}

// Issue 7: a failing MCP server is reported in one line, also when stdout
// is reserved for the json result object (the warning goes to stderr).
func TestMCPFailureReportedInJSONMode(t *testing.T) {
	w := newWorld(t)
	w.write(".mcp.json", `{"mcpServers":{"broken":{"command":"/bin/false"}}}`)
	r := w.hew("-p", "--mock", "--trust-project", "--output-format", "json", "hi")
	if r.code != 0 {
		t.Fatalf("a broken MCP server must not fail the run\n%s", r)
	}
	_ = jsonResult(t, r)
	if !regexp.MustCompile(`broken`).MatchString(r.stderr) {
		t.Fatalf("the failing server is not reported on stderr\n%s", r)
	}
}

// SPEC §6 + issue 2: the text events of a one-round answer join to the
// answer, also when a cut stream was retried (the partial attempt's text
// is discarded, not left in the event stream).
func TestCutStreamTextNotDuplicated(t *testing.T) {
	for _, via := range []string{"anthropic", "openai"} {
		w := newWorld(t)
		ms := w.startMock(`{"turns":[{"text":"The quick brown fox jumps over the lazy dog.","chunk_size":5,"cut_after_chunks":3,"cut_times":1}]}`)
		env := ms.anthropicEnv()
		if via == "openai" {
			env = ms.openaiEnv()
		}
		r := w.hewEnv(env, "-p", "--output-format", "stream-json", "go")
		var joined string
		for _, e := range ofType(events(t, r), "text") {
			joined += e.str("text")
		}
		if res := lastResult(t, r); joined != res.str("result") {
			t.Errorf("%s: text events join to %q, result is %q", via, joined, res.str("result"))
		}
	}
}
