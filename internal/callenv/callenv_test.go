package callenv

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPathScope(t *testing.T) {
	env := &Env{Root: "/proj", HomeDir: "/home/u", AdditionalDirs: []string{"/extra"}, StateDir: "/state"}
	read := PathScope(env, true)
	if !read.ReadOnly || read.Root != "/proj" || len(read.ReadOnlyDirs) != 2 || read.ReadOnlyDirs[0] != filepath.Join("/state", "tool-results") {
		t.Errorf("reading scope %+v", read)
	}
	if w := PathScope(env, false); w.ReadOnly {
		t.Errorf("a writing scope may only read? %+v", w)
	}
	if s := PathScope(nil, true); s.Root != "" || !s.ReadOnly {
		t.Errorf("nil env scope %+v", s)
	}
	var none *Env
	if none.ReadDenied("read_file", "/x") {
		t.Error("a nil Env denies reads")
	}
	deny := &Env{DeniedRead: func(tool, abs string) bool { return strings.HasSuffix(abs, ".env") }}
	if !deny.ReadDenied("grep_search", "/proj/.env") || deny.ReadDenied("grep_search", "/proj/a.go") {
		t.Error("DeniedRead not applied")
	}
}

func TestReadTracker(t *testing.T) {
	tr := NewReadTracker()
	tr.Record("/a", ReadReceipt{Size: 3, ModTime: time.Unix(1, 0)})
	if r, ok := tr.Get("/a"); !ok || r.Size != 3 {
		t.Fatalf("got %+v %v", r, ok)
	}
	tr.Forget()
	if _, ok := tr.Get("/a"); ok {
		t.Fatal("Forget kept a receipt")
	}
}

func TestNetReceiptSummary(t *testing.T) {
	ok := NetReceipt{Host: "proxy.golang.org", Port: 443, Decision: "allow", By: "default-list", Up: 10, Down: 20, Duration: 1500 * time.Microsecond}
	if s := ok.Summary(); ok.Denied() || !strings.Contains(s, "proxy.golang.org:443 allow by default-list") || !strings.Contains(s, "↑10 ↓20") {
		t.Errorf("allowed: %q", s)
	}
	no := NetReceipt{Host: "evil.example", Port: 80, Decision: "deny", By: "denied-domains", Reason: "listed"}
	if s := no.Summary(); !no.Denied() || !strings.HasSuffix(s, ": listed") {
		t.Errorf("denied: %q", s)
	}
}
