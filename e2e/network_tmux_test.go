//go:build linux

package e2e

import (
	"strings"
	"testing"

	hewsandbox "github.com/hew-dev/hew/internal/sandbox"
	"github.com/hew-dev/hew/internal/testenv"
)

// In the REPL, a command reaching a domain nobody allowed raises an
// approval like any other (even under --yolo, which does not lift the
// sandbox); "n" refuses it, the command's result says so, and /status
// shows how the network is confined. No name is ever resolved: the
// question comes first, and the answer is no.
func TestDomainApprovalUnderTmux(t *testing.T) {
	if ok, why := hewsandbox.Available(); !ok {
		testenv.Missing(t, "Landlock: "+why)
	}
	curl := testenv.Tool(t, "curl")
	s := newSandbox(t, false)
	sc := s.scenario("net.json", `{"turns": [
 {"text": "fetching", "tool_calls": [{"name": "run_shell", "input": {"command": "`+curl+` -sS --max-time 30 https://unknown.test/pkg; echo rc=$?"}}]},
 {"text": "all done"}
]}`)
	ts := startTmux(t, s.proj, append(s.env, "HEW_MOCK_SCRIPT="+sc), shellQuote(hewBin)+" --mock --yolo")
	ts.waitFor("the REPL prompt", func(sc string) bool { return strings.Contains(sc, "› ") })
	ts.send("fetch it", "Enter")
	screen := ts.waitFor("the domain question", func(sc string) bool { return strings.Contains(sc, "unknown.test:443") })
	for _, want := range []string{"network", "not in sandbox.allowedDomains", `sandbox.allowedDomains "unknown.test"`} {
		if !strings.Contains(screen, want) {
			t.Errorf("question lacks %q:\n%s", want, screen)
		}
	}
	ts.send("n")
	screen = ts.waitFor("the turn's end", func(sc string) bool { return strings.Contains(sc, "all done") })
	if !strings.Contains(screen, "rc=") || !strings.Contains(screen, "refused") {
		t.Errorf("after no:\n%s", screen)
	}
	ts.send("/status", "Enter")
	ts.waitFor("/status", func(sc string) bool { return strings.Contains(sc, "network: allowlist, enforced by") })
	ts.send("/exit", "Enter")
	ts.waitFor("exit", func(sc string) bool { return strings.Contains(sc, "EXITED") })
	stopTmux(ts)
}
