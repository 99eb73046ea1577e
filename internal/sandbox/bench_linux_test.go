//go:build linux

package sandbox

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/hew-dev/hew/internal/execx"
	"github.com/hew-dev/hew/internal/netproxy"
	"github.com/hew-dev/hew/internal/netproxy/proxytest"
	"github.com/hew-dev/hew/internal/tools"
)

// BenchmarkCommandStart is the cost of starting one sandboxed `true` in
// each network mode (the namespace path adds a second helper stage and
// the bridge):
//
//	go test -run '^$' -bench CommandStart -benchtime 20x ./internal/sandbox
func BenchmarkCommandStart(b *testing.B) {
	if ok, _ := Available(); !ok {
		b.Skip("no Landlock")
	}
	exe, _ := os.Executable()
	for _, mode := range []struct {
		name, network string
		noNS          bool
	}{{"network-off", SettingOff, false}, {"proxy-namespace", SettingAllowlist, false}, {"proxy-landlock", SettingAllowlist, true}} {
		b.Run(mode.name, func(b *testing.B) {
			if mode.name == "proxy-namespace" {
				if ok, why := NamespaceAvailable(); !ok {
					b.Skip(why)
				}
			}
			dir := b.TempDir()
			sb := New(Options{Policy: Policy{Root: dir, TempDir: dir, Executable: exe}, Enabled: true, Network: mode.network,
				NoNamespace: mode.noNS, Rules: netproxy.Rules{Defaults: []string{}}, Resolve: proxytest.Loopback})
			defer sb.Close()
			sh := sb.Shell(&execx.Runner{Wrap: sb.Wrap})
			req := tools.ShellRequest{Command: "true", Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH"), helperEnv + "=1"}, TimeoutMS: 10000}
			for b.Loop() {
				res, err := sh.Run(context.Background(), req)
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}

// BenchmarkDownloadInSandbox is curl inside the sandbox fetching 100 MB
// over plain HTTP from a loopback server through the proxy: via the
// namespace bridge (one more hop) and via the Landlock fallback.
//
//	go test -run '^$' -bench DownloadInSandbox -benchtime 3x ./internal/sandbox
func BenchmarkDownloadInSandbox(b *testing.B) {
	if ok, _ := Available(); !ok || abiVersion() < 4 {
		b.Skip("no Landlock network rules")
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		b.Skip("no curl")
	}
	const size = 100 << 20
	blob := make([]byte, 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for i := 0; i < size/len(blob); i++ {
			if _, err := w.Write(blob); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	exe, _ := os.Executable()
	b.Run("unsandboxed-direct", func(b *testing.B) {
		req := tools.ShellRequest{Command: curl + " -sS -o /dev/null " + srv.URL + "/blob", Env: []string{"PATH=" + os.Getenv("PATH")}, TimeoutMS: 60000}
		b.SetBytes(size)
		for b.Loop() {
			if res, err := (&execx.Runner{}).Run(context.Background(), req); err != nil || res.ExitCode != 0 {
				b.Fatalf("%v %+v", err, res)
			}
		}
	})
	for _, mode := range []struct {
		name string
		noNS bool
	}{{"namespace", false}, {"landlock", true}} {
		b.Run(mode.name, func(b *testing.B) {
			if !mode.noNS {
				if ok, why := NamespaceAvailable(); !ok {
					b.Skip(why)
				}
			}
			dir := b.TempDir()
			sb := New(Options{Policy: Policy{Root: dir, TempDir: dir, Executable: exe}, Enabled: true, NoNamespace: mode.noNS,
				Rules: netproxy.Rules{Allowed: []string{"registry.test"}, Defaults: []string{}}, Resolve: proxytest.Loopback})
			defer sb.Close()
			sh := sb.Shell(&execx.Runner{Wrap: sb.Wrap})
			req := tools.ShellRequest{Command: curl + " -sS -o /dev/null http://registry.test:" + port + "/blob", Dir: dir,
				Env: []string{"PATH=" + os.Getenv("PATH"), helperEnv + "=1"}, TimeoutMS: 60000}
			b.SetBytes(size)
			for b.Loop() {
				res, err := sh.Run(context.Background(), req)
				if err != nil || res.ExitCode != 0 || len(res.Network) != 1 || res.Network[0].Down < size {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
