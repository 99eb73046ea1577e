package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server states as Status reports them.
const (
	StatePending      = "pending"      // not started yet (lazy)
	StateConnected    = "connected"    // tools available
	StateDisconnected = "disconnected" // crashed or hung; restarted on the next call
	StateFailed       = "failed"       // start failed or too many faults; tools unavailable
	StateInvalid      = "invalid"      // bad configuration
)

// conn is hew's client connection to one configured MCP server: its
// process or HTTP session, state, tools and fault count. (The server hew
// itself runs, `hew mcp serve`, is in serve.go.)
type conn struct {
	cfg ServerConfig
	m   *Manager

	connMu sync.Mutex // serialises (re)connects

	mu           sync.Mutex
	state        string
	sess         *sdk.ClientSession
	tools        []*sdk.Tool // kept tools, sorted by name
	instructions string
	err          error
	faults       int // consecutive faults since the last good call
	lastFault    time.Time
	stderr       *tailBuffer
	cmd          *exec.Cmd // the latest stdio process (tests kill it)
}

func newConn(m *Manager, cfg ServerConfig) *conn {
	return &conn{cfg: cfg, m: m, state: StatePending, stderr: &tailBuffer{max: 2048}}
}

// start is the first connect of a pending server; a failure marks it
// failed at once (its tools stay absent).
func (s *conn) start(ctx context.Context) error {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	s.mu.Lock()
	pending := s.state == StatePending
	s.mu.Unlock()
	if !pending || s.m.closing.Err() != nil {
		return nil
	}
	err := s.connect(ctx)
	if err != nil {
		s.mu.Lock()
		s.err = err
		if ctx.Err() == nil {
			// Reported once; a cancelled start stays pending and is retried.
			s.state = StateFailed
		}
		s.mu.Unlock()
	}
	return err
}

// connect opens a session, lists its tools and watches for its end. The
// caller holds connMu.
func (s *conn) connect(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout)
	defer cancel()
	defer context.AfterFunc(s.m.closing, cancel)()
	tr, err := s.transport()
	if err != nil {
		return err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: s.m.opts.ClientName, Version: s.m.opts.ClientVersion},
		&sdk.ClientOptions{
			Capabilities: &sdk.ClientCapabilities{},
			ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
				s.m.bg.Add(1)
				go func() {
					defer s.m.bg.Done()
					s.refreshTools()
				}()
			},
		})
	cs, err := client.Connect(sctx, tr, nil)
	if err != nil {
		return s.startError(ctx, sctx, err)
	}
	var list []*sdk.Tool
	for t, err := range cs.Tools(sctx, nil) {
		if err != nil {
			_ = cs.Close()
			return s.startError(ctx, sctx, fmt.Errorf("listing tools: %w", err))
		}
		if keepTool(&s.cfg, t.Name) {
			list = append(list, t)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	instr := ""
	if ir := cs.InitializeResult(); ir != nil {
		instr = strings.TrimSpace(ir.Instructions)
	}
	s.mu.Lock()
	if s.m.closing.Err() != nil {
		// Close ran meanwhile: do not leave a session it cannot see.
		s.mu.Unlock()
		_ = cs.Close()
		return errors.New("hew is shutting down")
	}
	s.sess, s.state, s.err = cs, StateConnected, nil
	s.tools, s.instructions = list, instr
	s.mu.Unlock()
	s.m.bg.Add(1)
	go func() {
		defer s.m.bg.Done()
		_ = cs.Wait()
		s.lost(cs, errors.New("the server closed the connection"+s.stderrNote()))
	}()
	return nil
}

// refreshTools re-lists the tools after the server said its list changed,
// and adds new ones to the registry the Manager registered into.
func (s *conn) refreshTools() {
	ctx, cancel := context.WithTimeout(s.m.closing, s.cfg.StartupTimeout)
	defer cancel()
	s.mu.Lock()
	cs := s.sess
	s.mu.Unlock()
	if cs == nil {
		return
	}
	var list []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return
		}
		if keepTool(&s.cfg, t.Name) {
			list = append(list, t)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	s.mu.Lock()
	if s.sess != cs {
		s.mu.Unlock()
		return
	}
	s.tools = list
	s.mu.Unlock()
	s.m.registerNew()
}

// startError explains a failed start in one line.
func (s *conn) startError(parent, sctx context.Context, err error) error {
	switch {
	case parent.Err() != nil:
		return fmt.Errorf("start cancelled: %w", parent.Err())
	case sctx.Err() != nil:
		return fmt.Errorf("no answer within %s (set \"startupTimeout\" to wait longer)%s", s.cfg.StartupTimeout, s.stderrNote())
	}
	return fmt.Errorf("%w%s", err, s.stderrNote())
}

// stderrNote is the last line the server wrote to stderr, if any.
func (s *conn) stderrNote() string {
	if line := s.stderr.lastLine(); line != "" {
		return " (stderr: " + line + ")"
	}
	return ""
}

func (s *conn) transport() (sdk.Transport, error) {
	if s.m.dial != nil {
		return s.m.dial(&s.cfg)
	}
	switch s.cfg.Transport {
	case "http", "sse":
		hc := &http.Client{Transport: headerTransport{headers: s.cfg.Headers, base: http.DefaultTransport}}
		if s.cfg.Transport == "sse" {
			return detachedTransport{&sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc}}, nil
		}
		return &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc, MaxRetries: 1}, nil
	}
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir = s.cfg.Cwd
	env := append([]string(nil), s.m.baseEnv()...)
	keys := make([]string, 0, len(s.cfg.Env))
	for k := range s.cfg.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+s.cfg.Env[k])
	}
	cmd.Env = env
	var errw io.Writer = s.stderr
	if s.m.opts.Stderr != nil {
		errw = io.MultiWriter(s.stderr, prefixWriter{w: s.m.opts.Stderr, prefix: "[" + s.cfg.Name + "] "})
	}
	cmd.Stderr = errw
	// Grandchildren holding stderr open must not block Wait forever.
	cmd.WaitDelay = 2 * time.Second
	s.mu.Lock()
	s.cmd = cmd
	s.mu.Unlock()
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
}

// lost records that session cs ended while it was the current one.
func (s *conn) lost(cs *sdk.ClientSession, why error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != cs {
		return
	}
	s.sess = nil
	s.faultLocked(why)
}

// faultLocked counts a crash or hang; too many in a row mark the server failed.
func (s *conn) faultLocked(why error) {
	s.faults++
	s.lastFault = time.Now()
	s.err = why
	if s.faults >= s.m.maxFaults() {
		s.state = StateFailed
		s.err = fmt.Errorf("%d faults in a row, last: %w", s.faults, why)
	} else {
		s.state = StateDisconnected
	}
}

// drop closes a faulty session in the background (closing a hung stdio
// server waits for it to exit, then signals it).
func (s *conn) drop(cs *sdk.ClientSession, why error) {
	s.mu.Lock()
	if s.sess == cs {
		s.sess = nil
		s.faultLocked(why)
	}
	s.mu.Unlock()
	s.m.bg.Add(1)
	go func() {
		defer s.m.bg.Done()
		_ = cs.Close()
	}()
}

// session returns a live session, reconnecting (after a backoff) when the
// last one broke.
func (s *conn) session(ctx context.Context) (*sdk.ClientSession, error) {
	s.mu.Lock()
	if s.state == StateConnected && s.sess != nil {
		cs := s.sess
		s.mu.Unlock()
		return cs, nil
	}
	s.mu.Unlock()

	s.connMu.Lock()
	defer s.connMu.Unlock()
	s.mu.Lock()
	state, cs, faults, last, lastErr := s.state, s.sess, s.faults, s.lastFault, s.err
	s.mu.Unlock()
	switch {
	case s.m.closing.Err() != nil:
		return nil, fmt.Errorf("MCP server %q: hew is shutting down", s.cfg.Name)
	case state == StateConnected:
		return cs, nil
	case state == StateFailed:
		return nil, fmt.Errorf("MCP server %q is unavailable: %v", s.cfg.Name, lastErr)
	}
	if faults > 0 {
		if wait := s.m.backoff(faults) - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, fmt.Errorf("cancelled while waiting to restart MCP server %q: %w", s.cfg.Name, ctx.Err())
			case <-t.C:
			}
		}
	}
	if err := s.connect(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("cancelled while restarting MCP server %q: %w", s.cfg.Name, ctx.Err())
		}
		s.mu.Lock()
		s.faultLocked(fmt.Errorf("restart failed: %w", err))
		s.mu.Unlock()
		return nil, fmt.Errorf("MCP server %q could not be restarted: %v", s.cfg.Name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess, nil
}

// call runs one tool call. A tool-level failure comes back in the result; a
// protocol error is an error; a crash or hang is an error and a fault.
func (s *conn) call(ctx context.Context, name string, args map[string]any) (*sdk.CallToolResult, error) {
	cs, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{}
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
	defer cancel()
	// Manager.Close ends calls still running, so shutdown never waits on them.
	defer context.AfterFunc(s.m.closing, cancel)()
	res, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err == nil {
		s.mu.Lock()
		if s.sess == cs {
			s.faults = 0
		}
		s.mu.Unlock()
		return res, nil
	}
	if ctx.Err() != nil {
		// Ctrl+C: the SDK has told the server (notifications/cancelled).
		return nil, fmt.Errorf("cancelled: %w", ctx.Err())
	}
	if s.m.closing.Err() != nil {
		return nil, fmt.Errorf("MCP server %q: call stopped because hew is shutting down", s.cfg.Name)
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		return nil, fmt.Errorf("MCP server %q: %s", s.cfg.Name, werr.Message)
	}
	why := err
	if cctx.Err() != nil {
		why = fmt.Errorf("no answer within %s", s.cfg.CallTimeout)
	} else {
		why = fmt.Errorf("%w%s", err, s.stderrNote())
	}
	s.drop(cs, why)
	return nil, fmt.Errorf("MCP server %q failed during the call: %v; it will be restarted on the next call", s.cfg.Name, why)
}

// close ends the session for good (Manager.Close).
func (s *conn) close() {
	s.mu.Lock()
	cs := s.sess
	s.sess = nil
	if s.state == StateConnected || s.state == StateDisconnected {
		s.state = StatePending
	}
	s.mu.Unlock()
	if cs != nil {
		_ = cs.Close()
	}
}

// detachedTransport keeps a transport whose stream lives on the Connect
// context (SSE) alive after the start-up timeout's context ends, while
// still abandoning a connect that outlasts that timeout.
type detachedTransport struct{ inner sdk.Transport }

// Connect connects inner on a context that ends when the connection closes.
func (d detachedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	conn, err := d.inner.Connect(lctx)
	if !stop() {
		// ctx ended while connecting.
		if conn != nil {
			_ = conn.Close()
		}
		cancel()
		if err == nil {
			err = ctx.Err()
		}
		return nil, err
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return &cancelOnClose{Connection: conn, cancel: cancel}, nil
}

// cancelOnClose ends a detached connection's context with the connection.
type cancelOnClose struct {
	sdk.Connection
	cancel context.CancelFunc
}

// Close closes the connection, then its context.
func (c *cancelOnClose) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

// RoundTrip sends r with the configured headers.
func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// tailBuffer keeps the last bytes a server wrote to stderr, for error lines.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write keeps the tail of what the server printed.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.TrimSpace(s)
}

// prefixWriter prefixes every line with the server's name in a shared log.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

// Write prefixes each line with the server name.
func (p prefixWriter) Write(b []byte) (int, error) {
	lines := strings.SplitAfter(string(b), "\n")
	var sb strings.Builder
	for _, l := range lines {
		if l != "" {
			sb.WriteString(p.prefix + l)
		}
	}
	if _, err := io.WriteString(p.w, sb.String()); err != nil {
		return 0, err
	}
	return len(b), nil
}
