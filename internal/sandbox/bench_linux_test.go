//go:build linux

package sandbox

import (
	"context"
	"os"
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
