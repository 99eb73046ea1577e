package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/sandbox"
)

func run(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	root := t.TempDir()
	var out, errb bytes.Buffer
	code := Run(Options{
		Stdout: &out, Stderr: &errb, Root: root, HewHome: filepath.Join(t.TempDir(), "hew"), Version: "hew test",
		Getenv:    func(k string) string { return env[k] },
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Sandbox: func(s *config.Settings) *sandbox.Sandbox {
			return sandbox.New(sandbox.Options{Policy: sandbox.Policy{Root: root, Home: "-"}, Enabled: s.Sandbox.Enabled, Network: s.Sandbox.Network})
		},
	}, args)
	return code, out.String(), errb.String()
}

func TestDoctorReportsProviderAndSandbox(t *testing.T) {
	code, out, _ := run(t, nil, "--mock")
	wants := []string{"hew test", "provider: mock", "settings: no settings files"}
	if ok, why := sandbox.Available(); !ok {
		wants = append(wants, "warn  sandbox: "+why)
	} else if st := sandbox.New(sandbox.Options{Enabled: true}).State(); st.Network == sandbox.NetProxy {
		wants = append(wants, "ok    sandbox: on (", "sandbox network: allowlist, enforced by "+st.Enforcement, "sandbox built-in domains: ")
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat("/bin/bash"); err == nil && code != exitOK {
		t.Errorf("exit %d with only warnings:\n%s", code, out)
	}
}

func TestDoctorWithoutKeySaysHowToFix(t *testing.T) {
	code, out, _ := run(t, nil)
	if code != exitError || !strings.Contains(out, "FAIL  provider: no key found") || !strings.Contains(out, "fix: export ANTHROPIC_API_KEY") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if code, _, errs := run(t, nil, "extra"); code != exitUsage || !strings.Contains(errs, "takes no arguments") {
		t.Fatalf("extra argument: exit %d, %q", code, errs)
	}
	if code, out, _ := run(t, nil, "--help"); code != exitOK || !strings.Contains(out, "usage: hew doctor") || !strings.Contains(out, "--timeout") {
		t.Fatalf("help: exit %d, %q", code, out)
	}
}

func TestDoctorChecksMockScenario(t *testing.T) {
	code, out, _ := run(t, map[string]string{"HEW_MOCK_SCRIPT": filepath.Join(t.TempDir(), "missing.json")}, "--mock")
	if code != exitError || !strings.Contains(out, "FAIL  mock scenario:") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// Doctor says which settings files were used (Claude Code's included) and
// the project's trust state with what is withheld.
func TestDoctorFilesAndTrust(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".claude", "settings.json"), []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	Run(Options{
		Stdout: &out, Stderr: &errb, Root: root, HewHome: filepath.Join(t.TempDir(), "hew"), Version: "hew test",
		Getenv:    func(string) string { return "" },
		LookupEnv: func(string) (string, bool) { return "", false },
		Sandbox: func(s *config.Settings) *sandbox.Sandbox {
			return sandbox.New(sandbox.Options{Policy: sandbox.Policy{Root: root, Home: "-"}, Enabled: s.Sandbox.Enabled, Network: s.Sandbox.Network})
		},
	}, []string{"--mock"})
	for _, want := range []string{filepath.Join(".claude", "settings.json") + " is Claude Code's", "trust: not trusted: 1 hook ignored", "hook Stop runs: say done"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor lacks %q:\n%s", want, out.String())
		}
	}
}
