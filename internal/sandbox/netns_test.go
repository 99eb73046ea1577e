//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hew-dev/hew/internal/execx"
	"github.com/hew-dev/hew/internal/netproxy"
	"github.com/hew-dev/hew/internal/netproxy/proxytest"
	"github.com/hew-dev/hew/internal/testenv"
	"github.com/hew-dev/hew/internal/tools"
)

// netSandbox is a Sandbox with the allowlist proxy in front of a loopback
// registry, running commands through the test binary as the helper.
type netSandbox struct {
	env
	reg   *proxytest.Registry
	sb    *Sandbox
	shell tools.ShellRunner
}

func newNetSandbox(t *testing.T, noNamespace bool) *netSandbox {
	t.Helper()
	e := setup(t)
	if abiVersion() < 4 {
		testenv.Missing(t, "Landlock ABI v4 (TCP rules)")
	}
	if !noNamespace {
		if ok, why := NamespaceAvailable(); !ok {
			testenv.Missing(t, why)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	reg := proxytest.NewRegistry(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "package index for %s%s\n", r.Host, r.URL.Path)
	}))
	sb := New(Options{
		Policy:      Policy{Root: e.root, TempDir: e.tmp, Home: "-", Executable: exe},
		Enabled:     true,
		Network:     SettingAllowlist,
		Rules:       netproxy.Rules{Allowed: []string{"registry.test", "*.wild.test"}, Denied: []string{"blocked.test"}, Defaults: []string{}},
		Resolve:     proxytest.Loopback,
		NoNamespace: noNamespace,
	})
	t.Cleanup(func() { sb.Close() })
	want := EnforceNamespace
	if noNamespace {
		want = EnforceLandlock
	}
	if st := sb.State(); !st.Confined || st.Network != NetProxy || st.Enforcement != want {
		t.Fatalf("state %+v", st)
	}
	return &netSandbox{env: e, reg: reg, sb: sb, shell: sb.Shell(&execx.Runner{Wrap: sb.Wrap})}
}

func (n *netSandbox) run(t *testing.T, script string) tools.ShellResult {
	t.Helper()
	res, err := n.shell.Run(context.Background(), tools.ShellRequest{Command: script, Dir: n.root,
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + n.tmp, helperEnv + "=1"}, TimeoutMS: 30000})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func testProxyPath(t *testing.T, noNamespace bool) {
	curl := testenv.Tool(t, "curl")
	n := newNetSandbox(t, noNamespace)
	ca := n.reg.CAFile
	res := n.run(t, curl+" -sS --cacert "+ca+" "+n.reg.URL("registry.test")+"/left-pad")
	if res.ExitCode != 0 || !strings.Contains(res.Output, "package index for registry.test") {
		t.Fatalf("curl through the proxy (%d): %s %s", res.ExitCode, res.Output, res.SandboxNote)
	}
	if len(res.Network) != 1 || res.Network[0].Decision != "allow" || res.Network[0].Down == 0 || res.SandboxNote != "" {
		t.Errorf("receipts %+v, note %q", res.Network, res.SandboxNote)
	}
	// A program that ignores the proxy variables cannot connect directly,
	// not even to a server on the host's loopback.
	direct := fmt.Sprintf("127.0.0.1:%d", n.reg.Port)
	res = n.run(t, curl+" -sS --max-time 5 --noproxy '*' --cacert "+ca+" https://"+direct+"/")
	if res.ExitCode == 0 || strings.Contains(res.Output, "package index") {
		t.Fatalf("direct connection got through: %s", res.Output)
	}
	if !strings.Contains(res.SandboxNote, "only through hew's proxy") {
		t.Errorf("no explanation for the direct connection: %q (output %s)", res.SandboxNote, res.Output)
	}
	res = n.run(t, "exec 3<>/dev/tcp/127.0.0.1/"+fmt.Sprint(n.reg.Port)+" && echo connected")
	if strings.Contains(res.Output, "connected") {
		t.Fatalf("bash /dev/tcp connected directly: %s", res.Output)
	}
	// Nor through an MPTCP socket, which Landlock's TCP rules must cover too.
	if py, err := exec.LookPath("python3"); err == nil {
		res = n.run(t, py+` -c "import socket; s=socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); s.connect(('127.0.0.1', `+fmt.Sprint(n.reg.Port)+`)); print('connected')"`)
		if strings.Contains(res.Output, "connected") {
			t.Errorf("an MPTCP socket connected directly: %s", res.Output)
		}
		if noNamespace { // Landlock holds TCP only; the socket filter refuses UDP (DNS) and raw sockets
			res = n.run(t, py+` -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print('udp socket')"`)
			if strings.Contains(res.Output, "udp socket") {
				t.Errorf("a UDP socket was created in the Landlock fallback: %s", res.Output)
			}
		}
	}
	// A denied domain: refused, listed, explained.
	res = n.run(t, curl+" -sS --cacert "+ca+" "+n.reg.URL("blocked.test")+"/")
	if res.ExitCode == 0 || len(res.Denials) != 1 || !strings.Contains(string(res.Denials[0].Input), `"domain":"blocked.test"`) {
		t.Fatalf("denied domain (%d): %s, denials %+v", res.ExitCode, res.Output, res.Denials)
	}
	if !strings.Contains(res.SandboxNote, "blocked.test") || !strings.Contains(res.SandboxNote, "deniedDomains") {
		t.Errorf("note %q", res.SandboxNote)
	}
	// A name that an allow wildcard covers but that resolves to loopback.
	res = n.run(t, curl+" -sS --cacert "+ca+" "+n.reg.URL("x.wild.test")+"/")
	if res.ExitCode == 0 || !strings.Contains(res.SandboxNote, "internal") {
		t.Errorf("loopback name (%d): %s %q", res.ExitCode, res.Output, res.SandboxNote)
	}
	// SOCKS5 with the name resolved by the proxy.
	res = n.run(t, `curl -sS --cacert `+ca+` --proxy "$ALL_PROXY" `+n.reg.URL("registry.test")+"/socks")
	if res.ExitCode != 0 || !strings.Contains(res.Output, "/socks") {
		t.Errorf("socks5h (%d): %s", res.ExitCode, res.Output)
	}
}

func TestProxyThroughNamespace(t *testing.T) {
	testProxyPath(t, false)
	n := newNetSandbox(t, false)
	// Inside: only loopback, no route, so DNS and everything else go nowhere.
	res := n.run(t, "awk 'NR>2{print $1}' /proc/net/dev; echo routes=$(($(wc -l < /proc/net/route) - 1)); id -u")
	if !strings.HasPrefix(res.Output, "lo:\nroutes=0\n") || !strings.Contains(res.Output, fmt.Sprintf("\n%d\n", os.Getuid())) {
		t.Errorf("namespace has more than loopback or a different uid: %q", res.Output)
	}
	// No capability survives into the command.
	res = n.run(t, "grep CapEff /proc/self/status")
	if !strings.Contains(res.Output, "0000000000000000") && os.Getuid() != 0 {
		t.Errorf("command kept capabilities: %s", res.Output)
	}
	// Writes stay confined inside the namespace too.
	res = n.run(t, "echo x > "+filepath.Join(n.outside, "escaped"))
	if res.ExitCode == 0 || !strings.Contains(res.SandboxNote, n.outside) || !strings.Contains(res.SandboxNote, "additionalDirectories") {
		t.Errorf("outside write (%d): %s note %q", res.ExitCode, res.Output, res.SandboxNote)
	}
}

func TestProxyThroughLandlockFallback(t *testing.T) { testProxyPath(t, true) }

// TestNamespaceUnprivileged runs the namespace path as an ordinary user
// (uid 65534) when the tests run as root, as CI does: root could make
// network namespaces without a user namespace, users cannot.
func TestNamespaceUnprivileged(t *testing.T) {
	if os.Getuid() != 0 {
		if ok, why := NamespaceAvailable(); !ok {
			testenv.Missing(t, why)
		}
		t.Skip("already unprivileged: the other namespace tests cover it")
	}
	curl := testenv.Tool(t, "curl")
	e := setup(t)
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir), e.root, e.tmp, filepath.Dir(e.root), filepath.Dir(filepath.Dir(e.root))} {
		os.Chmod(d, 0o777)
	}
	exe, _ := os.Executable()
	bin := filepath.Join(dir, "hew-helper")
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(dst, src)
	src.Close()
	dst.Close()
	reg := proxytest.NewRegistry(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok from registry\n") }))
	ca := filepath.Join(dir, "ca.pem")
	b, _ := os.ReadFile(reg.CAFile)
	os.WriteFile(ca, b, 0o644)
	p, err := netproxy.Start(netproxy.Config{Rules: netproxy.Rules{Allowed: []string{"registry.test"}}, Resolve: proxytest.Loopback})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	scope := p.Begin("curl")
	argv, _ := Wrapper(Policy{Root: e.root, TempDir: e.tmp, Home: "-", Executable: bin, Net: NetProxy, ProxyPort: p.Port(), Namespace: true})(
		[]string{"bash", "-c", "id -u; " + curl + " -sS --cacert " + ca + " " + reg.URL("registry.test") + "/"})
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = e.root
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.tmp, helperEnv + "=1"}, scope.Env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "65534\n") || !strings.Contains(string(out), "ok from registry") {
		if strings.Contains(string(out), "user namespaces") || strings.Contains(string(out), "operation not permitted") {
			testenv.Missing(t, "unprivileged user namespaces: "+string(out))
		}
		t.Fatalf("as uid 65534: %v\n%s", err, out)
	}
	if rs := scope.End(); len(rs) != 1 || rs[0].Decision != "allow" {
		t.Errorf("receipts %+v", rs)
	}
}
