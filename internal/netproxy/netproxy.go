// Package netproxy is the sandbox's door to the network: an HTTP CONNECT,
// plain-HTTP and SOCKS5 proxy that hew runs outside the sandbox, on
// loopback, for its own sandboxed shell commands. Each command gets its own
// credential (a Scope), so the proxy serves no other local process and
// knows which command every connection belongs to. A connection goes
// through only when its domain passes the rules — deniedDomains first, then
// allowedDomains, the built-in registry list, or the user's answer to a
// question — and the proxy itself resolves the name and dials an address it
// has checked: loopback, private and link-local addresses are refused
// unless a rule names the host exactly, so a name pointing at 127.0.0.1 is
// no way into the user's local services. Every connection leaves a Receipt.
//
// A hand-written proxy rather than a library: the vetted module list has
// an HTTP proxy built for interception (MITM) and no SOCKS5 server, and
// neither would let the decision, the name resolution and the dial-time
// address check sit in one place.
package netproxy

import (
	"github.com/hew-dev/hew/internal/callenv"

	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Answer is the user's answer to a question about an unknown domain.
type Answer int

// Answers, from narrowest to widest.
const (
	// NobodyToAsk is the asker's word that nobody can answer (a headless
	// run): the domain is refused like an unknown one without an asker.
	NobodyToAsk Answer = -1
	// Deny refuses the domain for the rest of the command.
	Deny Answer = iota
	// AllowOnce allows the domain for the rest of the command that asked.
	AllowOnce
	// AllowSession allows it until hew exits.
	AllowSession
	// AllowAlways allows it for the session; the asker has saved it as an
	// allow rule for the project.
	AllowAlways
)

// Question is an unknown domain a command tried to reach.
type Question struct {
	Host string
	Port int
	// Command is the label of the scope that connected (the shell command).
	Command string
}

// Config configures a Proxy.
type Config struct {
	Rules Rules
	// Ask decides unknown domains; nil denies them (headless runs). It is
	// called at most once at a time per scope and host, and must honour
	// ctx, which ends with the command or the proxy.
	Ask func(ctx context.Context, q Question) Answer
	// Resolve replaces the system resolver (tests).
	Resolve Resolver
	// OnReceipt, when set, receives every receipt as its connection ends.
	OnReceipt func(Receipt)
	// DialTimeout bounds one upstream dial; zero means 15 s.
	DialTimeout time.Duration
}

// Receipt records one proxied connection. The type lives in callenv, the
// vocabulary shell results are made of.
type Receipt = callenv.NetReceipt

// DomainUse is a domain the session reached, for /status.
type DomainUse struct {
	Host        string
	By          string
	Connections int
	Up, Down    int64
}

// maxSessionReceipts bounds the receipts a proxy keeps for Receipts (each
// command's own are all in its Scope).
const maxSessionReceipts = 10000

// User is the proxy user name in every credential.
const User = "hew"

// Proxy is a running proxy.
type Proxy struct {
	cfg    Config
	ln     net.Listener
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	scopes   map[string]*Scope
	session  map[string]string // host → who allowed it for the session
	used     map[string]*DomainUse
	receipts []Receipt
	conns    map[net.Conn]struct{}

	// internal is Internal; tests that need loopback to count as public
	// replace it.
	internal func(netip.Addr) bool
}

// Start listens on 127.0.0.1 (a random port) and serves until Close.
func Start(cfg Config) (*Proxy, error) {
	if cfg.Resolve == nil {
		cfg.Resolve = systemResolver
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 15 * time.Second
	}
	if cfg.Rules.Defaults == nil {
		cfg.Rules.Defaults = DefaultDomains()
	}
	lc := net.ListenConfig{}
	lc.SetMultipathTCP(false)
	ln, err := lc.Listen(context.Background(), "tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("netproxy: listening on loopback: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{cfg: cfg, ln: ln, ctx: ctx, cancel: cancel,
		scopes: map[string]*Scope{}, session: map[string]string{}, used: map[string]*DomainUse{}, conns: map[net.Conn]struct{}{}, internal: Internal}
	p.wg.Add(1)
	go p.acceptLoop()
	return p, nil
}

// Port is the proxy's TCP port on 127.0.0.1.
func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// Close stops the proxy, ends every connection and waits for them.
func (p *Proxy) Close() error {
	p.cancel()
	err := p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Proxy) acceptLoop() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		p.mu.Lock()
		if p.ctx.Err() != nil {
			p.mu.Unlock()
			c.Close()
			return
		}
		p.conns[c] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go func() {
			defer p.wg.Done()
			p.serve(c)
			p.mu.Lock()
			delete(p.conns, c)
			p.mu.Unlock()
			c.Close()
		}()
	}
}

// serve tells SOCKS5 (first byte 5) from HTTP and hands the connection on.
func (p *Proxy) serve(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // the handshake
	br := bufio.NewReader(c)
	b, err := br.Peek(1)
	if err != nil {
		return
	}
	if b[0] == 5 {
		p.serveSOCKS(c, br)
		return
	}
	p.serveHTTP(c, br)
}

// Scope is one command's credential: connections made with it count as
// that command's, and "yes once" answers last as long as it does.
type Scope struct {
	p      *Proxy
	token  string
	label  string
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	answers  map[string]Answer        // host → this command's answer
	pending  map[string]chan struct{} // host → question in flight
	receipts []Receipt
	active   int // connections being served
}

// Begin opens a scope for one command; label (the command text) is shown
// in questions. End it when the command is over.
func (p *Proxy) Begin(label string) *Scope {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("netproxy: no randomness: " + err.Error()) // crypto/rand never fails on supported systems
	}
	ctx, cancel := context.WithCancel(p.ctx)
	s := &Scope{p: p, token: hex.EncodeToString(b[:]), label: label, ctx: ctx, cancel: cancel,
		answers: map[string]Answer{}, pending: map[string]chan struct{}{}}
	p.mu.Lock()
	p.scopes[s.token] = s
	p.mu.Unlock()
	return s
}

// End revokes the scope's credential (later connections are refused),
// cancels its open questions and returns its receipts. Connections the
// command's processes already closed get a moment to be counted.
func (s *Scope) End() []Receipt {
	s.p.mu.Lock()
	delete(s.p.scopes, s.token)
	s.p.mu.Unlock()
	s.cancel()
	for i := 0; i < 50 && s.open() > 0; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	return s.Receipts()
}

func (s *Scope) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// track counts a connection of the scope as open until the returned
// function runs.
func (s *Scope) track() func() {
	s.mu.Lock()
	s.active++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.active--
		s.mu.Unlock()
	}
}

// Receipts returns the scope's receipts of connections that have ended or
// were refused.
func (s *Scope) Receipts() []Receipt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.receipts)
}

// URL is the proxy URL with the scope's credential.
func (s *Scope) URL(scheme string) string {
	return scheme + "://" + User + ":" + s.token + "@127.0.0.1:" + strconv.Itoa(s.p.Port())
}

// Env is the environment that points a command's tools at the proxy:
// HTTP(S)_PROXY and ALL_PROXY in both cases, and NO_PROXY for loopback
// (inside the sandbox's own network namespace, local servers are the
// command's own).
func (s *Scope) Env() []string {
	h, socks := s.URL("http"), s.URL("socks5h")
	noProxy := "localhost,127.0.0.1,::1"
	return []string{
		"HTTP_PROXY=" + h, "http_proxy=" + h,
		"HTTPS_PROXY=" + h, "https_proxy=" + h,
		"ALL_PROXY=" + socks, "all_proxy=" + socks,
		"NO_PROXY=" + noProxy, "no_proxy=" + noProxy,
	}
}

// scopeFor checks a credential.
func (p *Proxy) scopeFor(user, pass string) *Scope {
	p.mu.Lock()
	defer p.mu.Unlock()
	for tok, s := range p.scopes {
		if subtle.ConstantTimeCompare([]byte(tok), []byte(pass)) == 1 && user == User {
			return s
		}
	}
	return nil
}

// Receipts returns the session's receipts so far (the newest ones, when
// there were more than maxSessionReceipts).
func (p *Proxy) Receipts() []Receipt {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.receipts)
}

// Used lists the domains this session connected to, by name.
func (p *Proxy) Used() []DomainUse {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]DomainUse, 0, len(p.used))
	for _, u := range p.used {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// record files a finished receipt with its scope and the session.
func (p *Proxy) record(s *Scope, r Receipt) {
	r.Command = s.label
	s.mu.Lock()
	s.receipts = append(s.receipts, r)
	s.mu.Unlock()
	p.mu.Lock()
	p.receipts = append(p.receipts, r)
	if len(p.receipts) > maxSessionReceipts { // the oldest go; Used keeps the totals
		p.receipts = append(p.receipts[:0], p.receipts[len(p.receipts)-maxSessionReceipts/2:]...)
	}
	if r.Decision == "allow" {
		u := p.used[r.Host]
		if u == nil {
			u = &DomainUse{Host: r.Host, By: r.By}
			p.used[r.Host] = u
		}
		u.Connections++
		u.Up += r.Up
		u.Down += r.Down
	}
	p.mu.Unlock()
	if p.cfg.OnReceipt != nil {
		p.cfg.OnReceipt(r)
	}
}

// verdict is a rule decision before any address is resolved.
type verdict struct {
	allow      bool
	by, reason string
}

// HowToAllow is the hint for a refused domain.
func HowToAllow(host string) string {
	return fmt.Sprintf(`to allow it, add %q to "sandbox.allowedDomains" in .hew/settings.json (or answer yes when hew asks), or set "sandbox.network": true`, host)
}

// decide applies the rules and, for an unknown domain, the question.
func (p *Proxy) decide(s *Scope, host string, port int) verdict {
	r := p.cfg.Rules
	if pat, ok := firstMatch(r.Denied, host); ok {
		return verdict{by: "denied-domains", reason: fmt.Sprintf("%s matches %q in sandbox.deniedDomains", host, pat)}
	}
	if _, ok := firstMatch(r.Allowed, host); ok {
		return verdict{allow: true, by: "allowed-domains"}
	}
	if _, ok := firstMatch(r.Defaults, host); ok {
		return verdict{allow: true, by: "default-list"}
	}
	for {
		p.mu.Lock()
		by, ok := p.session[host]
		p.mu.Unlock()
		if ok {
			return verdict{allow: true, by: by}
		}
		s.mu.Lock()
		if a, ok := s.answers[host]; ok {
			s.mu.Unlock()
			if a == Deny {
				return verdict{by: "user", reason: host + " was refused by the user for this command; " + HowToAllow(host)}
			}
			return verdict{allow: true, by: "user"}
		}
		if wait, ok := s.pending[host]; ok {
			s.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-s.ctx.Done():
				return verdict{by: "user", reason: "the command ended before the question about " + host + " was answered"}
			}
		}
		if p.cfg.Ask == nil {
			s.mu.Unlock()
			return headless(host)
		}
		done := make(chan struct{})
		s.pending[host] = done
		s.mu.Unlock()
		a := p.cfg.Ask(s.ctx, Question{Host: host, Port: port, Command: s.label})
		if s.ctx.Err() != nil {
			a = Deny
		}
		s.mu.Lock()
		delete(s.pending, host)
		if a == NobodyToAsk {
			s.mu.Unlock()
			close(done)
			return headless(host)
		}
		s.answers[host] = a
		s.mu.Unlock()
		close(done)
		switch a {
		case AllowSession, AllowAlways:
			by := "user:session"
			if a == AllowAlways {
				by = "user:project"
			}
			p.mu.Lock()
			p.session[host] = by
			p.mu.Unlock()
		}
	}
}

// headless is the verdict on an unknown domain when nobody can be asked.
func headless(host string) verdict {
	return verdict{by: "headless", reason: host + " is not in sandbox.allowedDomains and nobody can approve it in this run; " + HowToAllow(host)}
}

// open decides about host:port, resolves it, checks the addresses and
// dials one. The receipt is filled in either way.
func (p *Proxy) open(s *Scope, host string, port int, rec *Receipt) (net.Conn, error) {
	rec.Time, rec.Port = time.Now(), port
	h, ok := NormalizeHost(host)
	if !ok || port <= 0 || port > 65535 {
		rec.Host, rec.Decision, rec.By, rec.Reason = host, "deny", "error", fmt.Sprintf("%q:%d is not a valid host and port", host, port)
		return nil, errors.New(rec.Reason)
	}
	rec.Host = h
	v := p.decide(s, h, port)
	if !v.allow {
		rec.Decision, rec.By, rec.Reason = "deny", v.by, v.reason
		return nil, errors.New(v.reason)
	}
	rec.By = v.by
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(h); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ctx, cancel := context.WithTimeout(s.ctx, p.cfg.DialTimeout)
		addrs, err = p.cfg.Resolve(ctx, h)
		cancel()
		if err != nil || len(addrs) == 0 {
			rec.Decision, rec.By, rec.Reason = "deny", "error", fmt.Sprintf("cannot resolve %s: %v", h, err)
			return nil, errors.New(rec.Reason)
		}
	}
	explicit := p.cfg.Rules.namesExplicitly(h)
	var ok4 []netip.Addr
	for _, a := range addrs {
		if explicit || !p.internal(a) {
			ok4 = append(ok4, a.Unmap())
		}
	}
	if len(ok4) == 0 {
		rec.Decision, rec.By = "deny", "internal-address"
		rec.Reason = fmt.Sprintf("%s resolves to %s, an internal (loopback, private or link-local) address; the proxy connects there only when sandbox.allowedDomains names %q exactly", h, addrs[0], h)
		return nil, errors.New(rec.Reason)
	}
	c, addr, err := p.dial(s.ctx, ok4, port)
	if err != nil {
		rec.Decision, rec.By, rec.Reason = "deny", "error", fmt.Sprintf("connecting to %s:%d: %v", h, port, err)
		return nil, err
	}
	rec.Decision, rec.Addr = "allow", addr
	return c, nil
}

// dial connects to the first reachable vetted address. The dialer's
// Control hook checks the address the socket actually connects to, so
// nothing between the check and the connect can swap it.
func (p *Proxy) dial(ctx context.Context, addrs []netip.Addr, port int) (net.Conn, string, error) {
	vetted := map[netip.Addr]bool{}
	for _, a := range addrs {
		vetted[a] = true
	}
	d := net.Dialer{Timeout: p.cfg.DialTimeout, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !vetted[ap.Addr().Unmap()] {
			return fmt.Errorf("netproxy: refusing to dial unvetted address %s", address)
		}
		return nil
	}}
	d.SetMultipathTCP(false)
	var last error
	for _, a := range addrs {
		addr := netip.AddrPortFrom(a, uint16(port)).String()
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return c, addr, nil
		}
		last = err
	}
	return nil, "", last
}

// pipe copies both ways until both sides are done, counting bytes into rec.
func pipe(client net.Conn, clientBuf *bufio.Reader, upstream net.Conn, rec *Receipt) {
	start := time.Now()
	_ = client.SetDeadline(time.Time{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		n, _ := clientBuf.WriteTo(upstream)
		rec.Up = n
		closeWrite(upstream)
	}()
	n, _ := io.Copy(client, upstream)
	rec.Down = n
	closeWrite(client)
	wg.Wait()
	rec.Duration = time.Since(start)
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = c.Close()
}
