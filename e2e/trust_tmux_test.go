//go:build unix

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The trust prompt in a real terminal (SPEC section 4): the first run in a
// project whose settings would run code lists them and asks; "y" applies
// them and is remembered in $HEW_HOME/trusted.json, so the next run does
// not ask; a change to those settings asks again, and "n" leaves them off.
func TestTrustPromptUnderTmux(t *testing.T) {
	s := newSandbox(t, false)
	s.write(".hew/settings.json", `{"hooks": {"SessionStart": [{"command": "touch hook-ran"}]},
	  "permissions": {"defaultMode": "acceptEdits"}}`)
	run := func(answer, status string) string {
		ts := startTmux(t, s.proj, s.env, shellQuote(hewBin)+" --mock")
		ts.waitFor("the trust prompt", func(sc string) bool { return strings.Contains(sc, "[y/N]") })
		screen := ts.screen()
		ts.send(answer, "Enter")
		ts.waitFor("the REPL prompt", func(sc string) bool { return strings.Contains(sc, "› ") })
		ts.send("/status", "Enter")
		screen += ts.waitFor("/status", func(sc string) bool { return strings.Contains(sc, status) })
		ts.send("/exit", "Enter")
		ts.waitFor("exit", func(sc string) bool { return strings.Contains(sc, "EXITED") })
		stopTmux(ts)
		return screen
	}
	screen := run("y", "trusted since")
	for _, want := range []string{"would run code or widen", "touch hook-ran", "acceptEdits", "trusted since"} {
		if !strings.Contains(screen, want) {
			t.Errorf("first run lacks %q:\n%s", want, screen)
		}
	}
	if data, err := os.ReadFile(filepath.Join(s.home, "trusted.json")); err != nil || !strings.Contains(string(data), s.proj) {
		t.Fatalf("trust not remembered: %v %s", err, data)
	}

	// Trusted and unchanged: no question.
	ts := startTmux(t, s.proj, s.env, shellQuote(hewBin)+" --mock")
	sc := ts.waitFor("the REPL prompt", func(sc string) bool { return strings.Contains(sc, "› ") })
	if strings.Contains(sc, "[y/N]") {
		t.Errorf("asked again although nothing changed:\n%s", sc)
	}
	ts.send("/exit", "Enter")
	ts.waitFor("exit", func(sc string) bool { return strings.Contains(sc, "EXITED") })
	stopTmux(ts)

	s.write(".hew/settings.json", `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	screen = run("n", "not trusted (changed")
	for _, want := range []string{"changed since you trusted it", "bypassPermissions", "not trusted (changed"} {
		if !strings.Contains(screen, want) {
			t.Errorf("after a change lacks %q:\n%s", want, screen)
		}
	}
}

// stopTmux ends the tmux server and waits until it is gone, so the next
// startTmux on the same socket does not race its shutdown.
func stopTmux(ts *tmuxSession) {
	_ = exec.Command("tmux", "-L", ts.socket, "kill-server").Run()
	for i := 0; i < 100; i++ {
		if exec.Command("tmux", "-L", ts.socket, "list-sessions").Run() != nil {
			if _, err := os.Stat(filepath.Join(os.TempDir(), "tmux-"+itoa(os.Getuid()), ts.socket)); err != nil {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
