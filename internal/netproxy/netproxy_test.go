package netproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/netproxy/proxytest"
)

// fixture is a proxy in front of a loopback registry.
type fixture struct {
	reg   *proxytest.Registry
	proxy *Proxy
}

func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	reg := proxytest.NewRegistry(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "package index for %s%s", r.Host, r.URL.Path)
	}))
	if cfg.Resolve == nil {
		cfg.Resolve = proxytest.Loopback
	}
	if cfg.Rules.Defaults == nil {
		cfg.Rules.Defaults = []string{"*.wild.test"}
	}
	p, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return &fixture{reg: reg, proxy: p}
}

// get fetches https://name:port/path through the proxy as scope s.
func (f *fixture) get(s *Scope, name, path string) (string, error) {
	pu, _ := url.Parse(s.URL("http"))
	tr := &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{RootCAs: f.reg.Pool}}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	resp, err := c.Get(f.reg.URL(name) + path)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return string(b), fmt.Errorf("status %d", resp.StatusCode)
	}
	return string(b), err
}

// lastReceipt waits for the scope's connections to be over and returns
// the latest receipt.
func lastReceipt(t *testing.T, s *Scope) Receipt {
	t.Helper()
	for i := 0; i < 200 && (s.open() > 0 || len(s.Receipts()) == 0); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	rs := s.Receipts()
	if len(rs) == 0 {
		t.Fatal("no receipt")
	}
	return rs[len(rs)-1]
}

func TestAllowedDomainThroughConnect(t *testing.T) {
	var got []Receipt
	var mu sync.Mutex
	f := newFixture(t, Config{Rules: Rules{Allowed: []string{"registry.test"}},
		OnReceipt: func(r Receipt) { mu.Lock(); got = append(got, r); mu.Unlock() }})
	s := f.proxy.Begin("npm install")
	body, err := f.get(s, "registry.test", "/left-pad")
	if err != nil || !strings.Contains(body, "package index for registry.test") {
		t.Fatalf("got %q, %v", body, err)
	}
	r := lastReceipt(t, s)
	if r.Decision != "allow" || r.By != "allowed-domains" || r.Host != "registry.test" || r.Port != f.reg.Port || r.Via != "connect" || r.Command != "npm install" {
		t.Errorf("receipt %+v", r)
	}
	if r.Up < 100 || r.Down < 100 || r.Addr != fmt.Sprintf("127.0.0.1:%d", f.reg.Port) {
		t.Errorf("byte counts or address: %+v", r)
	}
	mu.Lock()
	if len(got) != 1 {
		t.Errorf("OnReceipt got %d receipts", len(got))
	}
	mu.Unlock()
	if u := f.proxy.Used(); len(u) != 1 || u[0].Host != "registry.test" || u[0].Connections != 1 {
		t.Errorf("used %+v", u)
	}
	if !strings.Contains(r.Summary(), "registry.test") || !strings.Contains(r.Summary(), "allow by allowed-domains") {
		t.Errorf("summary %q", r.Summary())
	}
}

func TestRefusals(t *testing.T) {
	f := newFixture(t, Config{Rules: Rules{Allowed: []string{"*.test", "registry.test"}, Denied: []string{"blocked.test", "*.registry.test"}}})
	cases := []struct {
		name, host, by, reason string
	}{
		{"denied wins over an allow rule", "blocked.test", "denied-domains", `matches "blocked.test" in sandbox.deniedDomains`},
		{"denied wildcard", "a.registry.test", "denied-domains", `"*.registry.test"`},
		// evil.test is allowed by the wildcard but resolves to 127.0.0.1:
		// only a rule naming it exactly opens loopback.
		{"name resolving to loopback", "evil.test", "internal-address", "resolves to 127.0.0.1"},
		{"default list is no licence for loopback", "x.wild.test", "internal-address", "internal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := f.proxy.Begin("curl")
			defer s.End()
			if body, err := f.get(s, c.host, "/"); err == nil {
				t.Fatalf("fetched %q", body)
			}
			r := lastReceipt(t, s)
			if r.Decision != "deny" || r.By != c.by || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("receipt %+v", r)
			}
		})
	}
	// The explicitly named host does reach loopback.
	s := f.proxy.Begin("curl")
	if _, err := f.get(s, "registry.test", "/"); err != nil {
		t.Errorf("explicit rule: %v", err)
	}
}

func TestCredentials(t *testing.T) {
	f := newFixture(t, Config{Rules: Rules{Allowed: []string{"registry.test"}}})
	s := f.proxy.Begin("x")
	status := func(auth string) string {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", f.proxy.Port()))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "CONNECT registry.test:%d HTTP/1.1\r\nHost: registry.test\r\n%s\r\n", f.reg.Port, auth)
		line, _ := bufio.NewReader(c).ReadString('\n')
		return line
	}
	if got := status(""); !strings.Contains(got, "407") {
		t.Errorf("no credentials: %q", got)
	}
	if got := status("Proxy-Authorization: Basic aGV3Ondyb25n\r\n"); !strings.Contains(got, "407") { // hew:wrong
		t.Errorf("wrong credentials: %q", got)
	}
	pu, _ := url.Parse(s.URL("http"))
	good := "Proxy-Authorization: Basic " + basic(pu.User.Username(), mustPass(pu)) + "\r\n"
	if got := status(good); !strings.Contains(got, "200") {
		t.Errorf("good credentials: %q", got)
	}
	s.End()
	if got := status(good); !strings.Contains(got, "407") {
		t.Errorf("credential still works after End: %q", got)
	}
	if _, err := f.get(s, "registry.test", "/"); err == nil {
		t.Error("ended scope fetched")
	}
}

func mustPass(u *url.URL) string { p, _ := u.User.Password(); return p }

func basic(u, p string) string { return base64.StdEncoding.EncodeToString([]byte(u + ":" + p)) }

func TestPlainHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") != "" {
			t.Error("credential forwarded upstream")
		}
		if r.URL.Path == "/fronted" {
			io.WriteString(w, "host="+r.Host)
			return
		}
		io.WriteString(w, "plain "+r.URL.Path)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	f := newFixture(t, Config{Rules: Rules{Allowed: []string{"registry.test"}}})
	s := f.proxy.Begin("wget")
	pu, _ := url.Parse(s.URL("http"))
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	for i := range 2 { // keep-alive to the proxy: two requests on one client connection
		resp, err := c.Get("http://registry.test:" + port + fmt.Sprintf("/p%d", i))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != fmt.Sprintf("plain /p%d", i) {
			t.Errorf("body %q", b)
		}
	}
	// A Host header naming another site does not travel: the vetted name does.
	raw, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", f.proxy.Port()))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(raw, "GET http://registry.test:%s/fronted HTTP/1.1\r\nHost: blocked.test\r\nProxy-Authorization: Basic %s\r\nConnection: close\r\n\r\n",
		port, basic(User, mustPass(pu)))
	got, _ := io.ReadAll(raw)
	raw.Close()
	if !strings.Contains(string(got), "host=registry.test:"+port) {
		t.Errorf("fronted request: %s", got)
	}
	resp, err := c.Get("http://blocked.test:" + port + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(b), "blocked.test") || !strings.Contains(string(b), "sandbox.allowedDomains") {
		t.Errorf("refusal %d %q", resp.StatusCode, b)
	}
	lastReceipt(t, s)
	rs := s.Receipts()
	if len(rs) != 4 || rs[0].Via != "http" || rs[0].Down == 0 || rs[3].By != "headless" {
		t.Errorf("receipts %+v", rs)
	}
}

func TestApprovals(t *testing.T) {
	var asked atomic.Int32
	var answer atomic.Int32
	f := newFixture(t, Config{Ask: func(ctx context.Context, q Question) Answer {
		asked.Add(1)
		if q.Host != "unknown.test" || q.Command != "npm install" {
			t.Errorf("question %+v", q)
		}
		time.Sleep(20 * time.Millisecond) // let concurrent connections pile up on one question
		return Answer(answer.Load())
	}, Rules: Rules{Allowed: []string{"unknown.test-not"}}})
	// unknown.test resolves to loopback; a name that only the user approved
	// must still not reach it, so answers are checked on their receipts.
	answer.Store(int32(AllowOnce))
	s := f.proxy.Begin("npm install")
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() { defer wg.Done(); f.get(s, "unknown.test", "/") }()
	}
	wg.Wait()
	if n := asked.Load(); n != 1 {
		t.Errorf("asked %d times for one domain in one command", n)
	}
	for _, r := range s.Receipts() {
		if r.By != "internal-address" {
			t.Errorf("approved name reached loopback or was refused for another reason: %+v", r)
		}
	}
	s.End()
	s = f.proxy.Begin("npm install")
	f.get(s, "unknown.test", "/")
	if n := asked.Load(); n != 2 {
		t.Errorf("yes once carried over to the next command (asked %d)", n)
	}
	s.End()
	answer.Store(int32(Deny))
	s = f.proxy.Begin("npm install")
	f.get(s, "unknown.test", "/")
	f.get(s, "unknown.test", "/")
	if r := lastReceipt(t, s); r.By != "user" || !strings.Contains(r.Reason, "refused by the user") || asked.Load() != 3 {
		t.Errorf("deny: asked %d, %+v", asked.Load(), r)
	}
	s.End()
	answer.Store(int32(AllowAlways))
	s = f.proxy.Begin("npm install")
	f.get(s, "unknown.test", "/")
	s.End()
	s = f.proxy.Begin("npm install")
	f.get(s, "unknown.test", "/")
	if n := asked.Load(); n != 4 {
		t.Errorf("yes for the project asked again (asked %d)", n)
	}
}

// TestApprovalAllows treats loopback as public for once, so that an
// approved domain ends in a real connection.
func TestApprovalAllows(t *testing.T) {
	f := newFixture(t, Config{Ask: func(context.Context, Question) Answer { return AllowSession }})
	f.proxy.internal = func(netip.Addr) bool { return false }
	s := f.proxy.Begin("go mod download")
	if _, err := f.get(s, "other.test", "/"); err != nil {
		t.Fatal(err)
	}
	if r := lastReceipt(t, s); r.Decision != "allow" || r.By != "user:session" {
		t.Errorf("receipt %+v", r)
	}
	s.End()
	s = f.proxy.Begin("go build")
	if _, err := f.get(s, "other.test", "/"); err != nil {
		t.Fatal(err)
	}
	lastReceipt(t, s)
	if u := f.proxy.Used(); len(u) != 1 || u[0].Connections != 2 || u[0].By != "user:session" {
		t.Errorf("used %+v", u)
	}
}

func TestHeadlessDeniesUnknown(t *testing.T) {
	f := newFixture(t, Config{})
	s := f.proxy.Begin("pip install x")
	if _, err := f.get(s, "unknown.test", "/"); err == nil {
		t.Fatal("unknown domain fetched without an asker")
	}
	r := lastReceipt(t, s)
	if r.By != "headless" || !strings.Contains(r.Reason, `add "unknown.test" to "sandbox.allowedDomains"`) {
		t.Errorf("receipt %+v", r)
	}
}

func TestQuestionEndsWithCommand(t *testing.T) {
	started := make(chan struct{})
	f := newFixture(t, Config{Ask: func(ctx context.Context, q Question) Answer {
		close(started)
		<-ctx.Done()
		return AllowSession
	}})
	s := f.proxy.Begin("curl")
	done := make(chan error, 1)
	go func() { _, err := f.get(s, "unknown.test", "/"); done <- err }()
	<-started
	s.End()
	select {
	case err := <-done:
		if err == nil {
			t.Error("connection went through after its command ended")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("question outlived its command")
	}
	if len(f.proxy.session) != 0 {
		t.Errorf("an answer after the end was kept: %v", f.proxy.session)
	}
}

func TestMatchAndNormalize(t *testing.T) {
	cases := []struct {
		pattern, host string
		want          bool
	}{
		{"example.com", "example.com", true},
		{"example.com", "a.example.com", false},
		{"*.example.com", "a.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "badexample.com", false},
		{"Example.COM", "example.com", true},
		{"10.1.2.3", "10.1.2.3", true},
		{"::1", "::1", true},
		{"*.com", "evil.com", true},
	}
	for _, c := range cases {
		if got := Match(c.pattern, c.host); got != c.want {
			t.Errorf("Match(%q, %q) = %v", c.pattern, c.host, got)
		}
	}
	for in, want := range map[string]string{"Registry.Test.": "registry.test", "[::1]": "::1", "a_b.test": "a_b.test"} {
		if got, ok := NormalizeHost(in); !ok || got != want {
			t.Errorf("NormalizeHost(%q) = %q, %v", in, got, ok)
		}
	}
	for _, bad := range []string{"", "a..b", "a b", "x/y", "evil.com\x00.test", strings.Repeat("a", 64) + ".test"} {
		if _, ok := NormalizeHost(bad); ok {
			t.Errorf("NormalizeHost(%q) accepted", bad)
		}
	}
}

func TestInternal(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "127.9.9.9", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "0.0.0.0",
		"100.64.0.1", "::1", "::", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::", "224.0.0.1", "255.255.255.255"} {
		if !Internal(netip.MustParseAddr(s)) {
			t.Errorf("%s counted as public", s)
		}
	}
	for _, s := range []string{"1.1.1.1", "8.8.4.4", "2606:4700::1111", "64:ff9b::101:101"} {
		if Internal(netip.MustParseAddr(s)) {
			t.Errorf("%s counted as internal", s)
		}
	}
}

func TestDefaultsAreValidPatterns(t *testing.T) {
	d := DefaultDomains()
	if len(d) < 10 {
		t.Fatalf("default list has %d entries", len(d))
	}
	for _, p := range d {
		if _, ok := NormalizeHost(strings.TrimPrefix(p, "*.")); !ok {
			t.Errorf("default entry %q is not a domain pattern", p)
		}
	}
	d[0] = "changed"
	if DefaultDomains()[0] == "changed" {
		t.Error("DefaultDomains shares its slice")
	}
}
