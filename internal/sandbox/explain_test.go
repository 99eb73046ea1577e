package sandbox

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/netproxy"
	"github.com/hew-dev/hew/internal/tools"
)

// confined is a Sandbox whose state is fixed (no probing), for explanation tests.
func confined(net NetMode) *Sandbox {
	s := New(Options{Policy: Policy{Root: "/proj", TempDir: "/tmpx", Extra: []string{"/extra"}, Home: "/home/u"}, Enabled: true})
	s.stateOnce.Do(func() { s.state = State{Confined: true, Network: net} })
	return s
}

func TestExplainBlockedWrites(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX paths")
	}
	cases := []struct {
		name, out string
		want      []string // paths named; none means no note
	}{
		{"bash redirect", "bash: /etc/hosts: Permission denied", []string{"/etc/hosts"}},
		{"touch", "touch: cannot touch '/usr/local/x': Permission denied", []string{"/usr/local/x"}},
		{"python", "PermissionError: [Errno 13] Permission denied: '/opt/data.db'", []string{"/opt/data.db"}},
		{"node", "Error: EACCES: permission denied, mkdir '/usr/lib/node_modules/x'", []string{"/usr/lib/node_modules/x"}},
		{"go", "open /var/lib/x.lock: permission denied", []string{"/var/lib/x.lock"}},
		{"rm EPERM", "rm: cannot remove '/srv/a': Operation not permitted", []string{"/srv/a"}},
		{"home dotfile", "bash: ~/.bashrc: Permission denied", []string{"/home/u/.bashrc"}},
		{"relative escaping", "bash: ../sibling/f: Permission denied", []string{"/sibling/f"}},
		{"inside the project is not the sandbox", "bash: /proj/ro.txt: Permission denied", nil},
		{"temp and extra dirs", "x: /tmpx/a: Permission denied\ny: /extra/b/c: EACCES", nil},
		{"no permission words", "cp: /etc/passwd: No such file", nil},
	}
	s := confined(NetOff)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			note, short := s.explain("/proj", tools.ShellResult{Output: c.out, ExitCode: 1})
			if len(c.want) == 0 {
				if note != "" {
					t.Errorf("note for %q: %s", c.out, note)
				}
				return
			}
			for _, p := range c.want {
				if !strings.Contains(note, p) || !strings.Contains(short, p) {
					t.Errorf("note %q / %q lacks %s", note, short, p)
				}
			}
			for _, w := range []string{"additionalDirectories", "--add-dir", "--no-sandbox", "/proj"} {
				if !strings.Contains(note, w) {
					t.Errorf("note lacks %q: %s", w, note)
				}
			}
		})
	}
	// A command that succeeded, or was not confined, gets no note.
	if note, _ := s.explain("/proj", tools.ShellResult{Output: "bash: /etc/x: Permission denied", ExitCode: 0}); note != "" {
		t.Errorf("note on success: %s", note)
	}
	off := New(Options{Policy: Policy{Root: "/proj"}})
	if note, _ := off.explain("/proj", tools.ShellResult{Output: "bash: /etc/x: Permission denied", ExitCode: 1}); note != "" {
		t.Errorf("note without a sandbox: %s", note)
	}
}

func TestExplainNetwork(t *testing.T) {
	out := "curl: (7) Failed to connect to 10.1.1.1 port 443 after 0 ms: Couldn't connect to server"
	note, _ := confined(NetOff).explain("/proj", tools.ShellResult{Output: out, ExitCode: 7})
	if !strings.Contains(note, `"sandbox.network": false`) || !strings.Contains(note, "allowlist") {
		t.Errorf("network off: %s", note)
	}
	note, _ = confined(NetProxy).explain("/proj", tools.ShellResult{Output: out, ExitCode: 7})
	if !strings.Contains(note, "only through hew's proxy") || !strings.Contains(note, "HTTPS_PROXY") {
		t.Errorf("proxy: %s", note)
	}
	if note, _ := confined(NetAll).explain("/proj", tools.ShellResult{Output: out, ExitCode: 7}); note != "" {
		t.Errorf("network on: %s", note)
	}
	// Refused domains are named even when the command hid the failure.
	rs := []netproxy.Receipt{
		{Host: "evil.test", Port: 443, Decision: "deny", By: "denied-domains", Reason: "evil.test matches \"evil.test\" in sandbox.deniedDomains"},
		{Host: "evil.test", Port: 443, Decision: "deny", By: "denied-domains", Reason: "again"},
		{Host: "gone.test", Port: 443, Decision: "deny", By: "error", Reason: "cannot resolve"},
		{Host: "ok.test", Port: 443, Decision: "allow", By: "allowed-domains"},
	}
	note, short := confined(NetProxy).explain("/proj", tools.ShellResult{ExitCode: 0, Network: rs})
	if strings.Count(note, "evil.test was refused") != 1 || strings.Contains(note, "gone.test") || strings.Contains(note, "ok.test") || !strings.Contains(short, "evil.test") {
		t.Errorf("refused domains: %q / %q", note, short)
	}
}

func TestAddAllowedDomain(t *testing.T) {
	path := t.TempDir() + "/.hew/settings.local.json"
	if err := AddAllowedDomain(path, "registry.test"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"model": "m", "sandbox": {"network": "allowlist", "allowedDomains": ["a.test"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second time changes nothing
		if err := AddAllowedDomain(path, "registry.test"); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	var got struct {
		Model   string
		Sandbox struct {
			Network        string
			AllowedDomains []string
		}
	}
	if err := json.Unmarshal(b, &got); err != nil || got.Model != "m" || got.Sandbox.Network != "allowlist" ||
		strings.Join(got.Sandbox.AllowedDomains, ",") != "a.test,registry.test" {
		t.Fatalf("file %s (%v)", b, err)
	}
	os.WriteFile(path, []byte("[1]"), 0o644)
	if err := AddAllowedDomain(path, "x.test"); err == nil {
		t.Error("a non-object file was overwritten")
	}
	if b, _ := os.ReadFile(path); string(b) != "[1]" {
		t.Errorf("file changed: %s", b)
	}
}
