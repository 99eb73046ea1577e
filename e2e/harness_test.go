package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/testenv"
)

// hewBin is the binary under test, built once by TestMain.
var hewBin string

func TestMain(m *testing.M) { os.Exit(testenv.MainWithHew(m, &hewBin, raceBuild)) }

// sandbox is one test's world: a project directory (a git repo when asked),
// a HEW_HOME and a HOME of its own, and an environment without any key.
type sandbox struct {
	t    *testing.T
	proj string
	home string // HEW_HOME
	user string // HOME
	env  []string
}

func newSandbox(t *testing.T, gitRepo bool) *sandbox {
	t.Helper()
	base := t.TempDir()
	s := &sandbox{t: t, proj: filepath.Join(base, "proj"), home: filepath.Join(base, "hewhome"), user: filepath.Join(base, "user")}
	for _, d := range []string{s.proj, s.user} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := filepath.EvalSymlinks(s.proj); err == nil {
		s.proj = r
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "HEW_") || strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "AGENT_") || k == "HOME" {
			continue
		}
		s.env = append(s.env, kv)
	}
	s.env = append(s.env, "HEW_HOME="+s.home, "HOME="+s.user, "NO_COLOR=1")
	if gitRepo {
		testenv.Tool(t, "git")
		s.git("init", "-q")
		s.git("config", "user.email", "e2e@example.invalid")
		s.git("config", "user.name", "e2e")
	}
	return s
}

func (s *sandbox) git(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = s.proj
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *sandbox) write(rel, content string) string {
	s.t.Helper()
	p := filepath.Join(s.proj, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

func (s *sandbox) read(rel string) string {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.proj, rel))
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

// scenario writes a mock scenario outside the project and returns its path.
func (s *sandbox) scenario(name, body string) string {
	s.t.Helper()
	p := filepath.Join(filepath.Dir(s.proj), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// result is one finished hew process.
type result struct {
	code           int
	stdout, stderr string
}

func (s *sandbox) cmd(extraEnv []string, args ...string) *exec.Cmd {
	cmd := exec.Command(hewBin, args...)
	cmd.Dir = s.proj
	cmd.Env = append(append([]string{}, s.env...), extraEnv...)
	return cmd
}

// run runs hew to completion (bounded, so a hang fails instead of stalling CI).
func (s *sandbox) run(extraEnv []string, args ...string) result {
	s.t.Helper()
	return s.runStdin(extraEnv, "", args...)
}

func (s *sandbox) runStdin(extraEnv []string, stdin string, args ...string) result {
	s.t.Helper()
	cmd := s.cmd(extraEnv, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		s.t.Fatalf("hew %v did not finish\nstdout:\n%s\nstderr:\n%s", args, out.String(), errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatal(err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// events parses stream-json output, failing on any line that is not JSON.
func events(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("stdout line is not JSON: %v\n%s", err, line)
		}
		evs = append(evs, ev)
	}
	return evs
}

// ofType returns the events of one type.
func ofType(evs []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e["type"] == typ {
			out = append(out, e)
		}
	}
	return out
}

// sessionFiles lists the session files under HEW_HOME.
func (s *sandbox) sessionFiles() []string {
	m, _ := filepath.Glob(filepath.Join(s.home, "projects", "*", "sessions", "*.jsonl"))
	return m
}
