package spec

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/testenv"
)

// Settings "sandbox" (SPEC section 3; issue 5): run_shell may write inside
// the project and the temp directory only, even under --yolo, and has no
// network unless sandbox.network is true. Where the sandbox is not
// available, hew says so visibly instead.
func TestSandbox(t *testing.T) {
	testenv.Tool(t, "bash")
	w := newWorld(t)
	tmp := filepath.Join(filepath.Dir(w.proj), "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	w.env = append(w.env, "TMPDIR="+tmp)
	outside := filepath.Join(filepath.Dir(w.proj), "outside.txt")
	doctor := w.hew("doctor", "--mock")
	available := strings.Contains(doctor.stdout, "ok    sandbox: on (")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
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
	cmd := `touch ` + outside + `; echo out=$?; touch inside.txt; echo in=$?; touch "$TMPDIR/t.txt"; echo tmp=$?; ` +
		`(exec 3<>/dev/tcp/127.0.0.1/` + itoa(port) + `) 2>/dev/null; echo net=$?`
	sc := `{"turns":[{"text":"t","tool_calls":[{"name":"run_shell","input":{"command":` + quote(cmd) + `}}]},{"text":"end"}]}`
	for _, c := range []struct {
		settings string
		out, net string // expected exit statuses when sandboxed
	}{
		{`{}`, "out=1", "net=1"},
		{`{"sandbox":{"enabled":true,"network":true}}`, "out=1", "net=0"},
		{`{"sandbox":{"enabled":false}}`, "out=0", "net=0"},
	} {
		_ = os.Remove(outside)
		w.write(".hew/settings.json", c.settings)
		r := w.hewEnv(w.mockEnv(sc), "-p", "--mock", "--trust-project", "--yolo", "--output-format", "stream-json", "go")
		tr := ofType(events(t, r), "tool_result")
		if len(tr) != 1 {
			t.Fatalf("%s: no run_shell result\n%s", c.settings, r)
		}
		got := tr[0].str("content")
		if !strings.Contains(got, "in=0") || !strings.Contains(got, "tmp=0") {
			t.Errorf("%s: writes inside the project / temp dir failed: %q", c.settings, got)
		}
		if !available {
			if c.settings != `{"sandbox":{"enabled":false}}` && !strings.Contains(strings.ToLower(r.stdout+r.stderr), "sandbox") {
				t.Errorf("sandbox unavailable but no visible warning\n%s", r)
			}
			continue
		}
		if !strings.Contains(got, c.out) || !strings.Contains(got, c.net) {
			t.Errorf("%s: want %s and %s, got %q", c.settings, c.out, c.net, got)
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
