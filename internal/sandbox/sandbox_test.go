package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/testenv"
)

const helperEnv = "HEW_SANDBOX_TEST_HELPER"

// TestMain lets the test binary act as the hew helper: the Wrapper points
// Executable at os.Args[0] and the env var selects the personality.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func TestParseArgs(t *testing.T) {
	h, err := parseArgs([]string{"__sandbox", "--rw", "/a", "--rw=/b", "--no-network", "--", "bash", "-c", "x"})
	if err != nil || !slices.Equal(h.rw, []string{"/a", "/b"}) || !h.noNetwork || !slices.Equal(h.argv, []string{"bash", "-c", "x"}) {
		t.Fatalf("got %+v, %v", h, err)
	}
	for _, bad := range [][]string{{"--rw"}, {"--"}, {"--bogus", "--", "x"}, {"bash"}} {
		if _, err := parseArgs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if code := Main([]string{"--nope"}); code != 2 {
		t.Errorf("usage error exit %d", code)
	}
}

func TestWrapperArgv(t *testing.T) {
	p := Policy{Root: "/proj", Extra: []string{"/extra"}, TempDir: "/tmpx", Home: "-", Executable: "/usr/bin/hew"}
	argv, err := Wrapper(p)([]string{"/bin/bash", "-c", "ls"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/usr/bin/hew", "__sandbox", "--rw", "/proj", "--rw", "/tmpx", "--rw", "/extra", "--no-network", "--", "/bin/bash", "-c", "ls"}
	if !slices.Equal(argv, want) {
		t.Errorf("argv %q\nwant %q", argv, want)
	}
	p.Network = true
	argv, _ = Wrapper(p)([]string{"sh"})
	if slices.Contains(argv, "--no-network") {
		t.Errorf("network allowed but argv %q", argv)
	}
	if _, err := Wrapper(p)(nil); err == nil {
		t.Error("empty argv accepted")
	}
}

func TestStartupWarning(t *testing.T) {
	off := New(Options{Policy: Policy{Root: "/p"}, DisabledBy: "--no-sandbox"})
	if w := off.StartupWarning(); !strings.Contains(w, "--no-sandbox") || !strings.Contains(w, "unconfined") {
		t.Errorf("off: %q", w)
	}
	if st := off.State(); st.Confined || !strings.HasPrefix(off.Describe(), "off (turned off: --no-sandbox)") {
		t.Errorf("off state %+v / %q", st, off.Describe())
	}
	on := New(Options{Policy: Policy{Root: "/p"}, Enabled: true, Network: SettingOff})
	ok, _ := Available()
	if st := on.State(); st.Confined != ok || (on.StartupWarning() == "") != (ok && abiVersion() >= 4) {
		t.Errorf("available %v: state %+v, warning %q", ok, st, on.StartupWarning())
	}
	if ok && abiVersion() >= 4 && !strings.HasSuffix(on.Describe(), "network off (connections fail)") {
		t.Errorf("describe %q", on.Describe())
	}
	proxied := New(Options{Policy: Policy{Root: "/p"}, Enabled: true})
	if ok && abiVersion() >= 4 && !strings.Contains(proxied.Describe(), "only through hew's proxy") {
		t.Errorf("describe %q", proxied.Describe())
	}
}

type env struct{ root, outside, tmp string }

func setup(t *testing.T) env {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("Landlock is Linux-only")
	}
	if ok, why := Available(); !ok {
		testenv.Missing(t, "Landlock: "+why)
	}
	testenv.Tool(t, "bash")
	base := t.TempDir()
	e := env{root: filepath.Join(base, "proj"), outside: filepath.Join(base, "outside"), tmp: filepath.Join(base, "tmp")}
	for _, d := range []string{e.root, e.outside, e.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// sandboxed runs a bash command through the helper and returns its output
// and exit status.
func sandboxed(t *testing.T, p Policy, dir, script string) (string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p.Executable = exe
	argv, err := Wrapper(p)([]string{"bash", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func TestSandboxConfinesWrites(t *testing.T) {
	e := setup(t)
	p := Policy{Root: e.root, TempDir: e.tmp, Home: "-"}
	inside := filepath.Join(e.root, "made-inside.txt")
	out, code := sandboxed(t, p, e.root, "echo hi > made-inside.txt && mkdir -p sub/dir && mv made-inside.txt sub/dir/ && echo tmp > "+filepath.Join(e.tmp, "t")+" && echo ok > /dev/null && cat /etc/hostname >/dev/null 2>&1; echo done")
	if code != 0 || !strings.Contains(out, "done") {
		t.Fatalf("inside write failed (%d): %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(e.root, "sub", "dir", filepath.Base(inside))); err != nil {
		t.Errorf("file written inside the project is missing: %v", err)
	}
	target := filepath.Join(e.outside, "escaped.txt")
	out, code = sandboxed(t, p, e.root, "echo pwned > "+target)
	if code == 0 {
		t.Errorf("write outside the project succeeded: %s", out)
	}
	if !strings.Contains(out, "Permission denied") {
		t.Errorf("unexpected output: %s", out)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("outside file exists after a sandboxed write (err %v)", err)
	}
	// Deleting outside is a write too.
	victim := filepath.Join(e.outside, "keep.txt")
	if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, code := sandboxed(t, p, e.root, "rm -f "+victim); code == 0 {
		t.Error("rm outside the project succeeded")
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("outside file was deleted: %v", err)
	}
	// The parent (this test process) is not confined.
	if err := os.WriteFile(filepath.Join(e.outside, "parent.txt"), []byte("x"), 0o644); err != nil {
		t.Errorf("parent process got confined: %v", err)
	}
}

func TestSandboxNetwork(t *testing.T) {
	e := setup(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		testenv.Missing(t, "loopback TCP: "+err.Error())
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(port) + " && echo connected"
	out, _ := sandboxed(t, Policy{Root: e.root, TempDir: e.tmp, Home: "-", Network: true}, e.root, connect)
	if !strings.Contains(out, "connected") {
		testenv.Missing(t, "a bash that opens /dev/tcp (got: "+out+")")
	}
	out, code := sandboxed(t, Policy{Root: e.root, TempDir: e.tmp, Home: "-"}, e.root, connect)
	if code == 0 || strings.Contains(out, "connected") {
		ok, why := Available()
		t.Errorf("TCP connect allowed with the network off (%v, %s): %s", ok, why, out)
	}
	// Landlock's TCP rules do not see MPTCP sockets; the socket filter must.
	if py, err := exec.LookPath("python3"); err == nil {
		out, _ = sandboxed(t, Policy{Root: e.root, TempDir: e.tmp, Home: "-"}, e.root,
			py+` -c "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); s.connect(('127.0.0.1', `+strconv.Itoa(port)+`)); print('connected')"`)
		if strings.Contains(out, "connected") {
			t.Errorf("an MPTCP socket connected with the network off: %s", out)
		}
	}
}

// The policy reads the caches' places from the environment it is given,
// never from the process: an empty Home means no caches at all.
func TestWritableUsesTheGivenEnvironment(t *testing.T) {
	env := map[string]string{"XDG_CACHE_HOME": "/x/cache", "GOMODCACHE": "/x/mod"}
	p := Policy{Root: "/proj", TempDir: "/tmp", Home: "/home/u", Getenv: func(k string) string { return env[k] }}
	got := strings.Join(p.Writable(), " ")
	for _, want := range []string{"/proj", "/x/cache", "/x/mod", "/home/u/.npm"} {
		if !strings.Contains(got, want) {
			t.Errorf("writable %q lacks %s", got, want)
		}
	}
	if strings.Contains(got, "/home/u/.cache") || strings.Contains(got, "/home/u/go/pkg/mod") {
		t.Errorf("writable %q ignores the given environment", got)
	}
	p.Getenv = nil
	if got := strings.Join(p.Writable(), " "); !strings.Contains(got, "/home/u/.cache") || !strings.Contains(got, "/home/u/go/pkg/mod") {
		t.Errorf("without an environment: %q", got)
	}
	if got := (Policy{Root: "/proj", TempDir: "/tmp"}).Writable(); len(got) != 2 {
		t.Errorf("no home: %q", got)
	}
}
