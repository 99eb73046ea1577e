package mcp

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Deferral budget: beyond either limit all MCP tools are deferred and found
// through tool_search, so a large server does not crowd every request.
const (
	DefaultMaxTools        = 30
	DefaultMaxSchemaTokens = 10000
)

// maxParallelStarts bounds how many servers start at once.
const maxParallelStarts = 8

// Options tunes a Manager; the zero value works.
type Options struct {
	// Env is the base environment of stdio servers (the one hew was given);
	// nil is an empty one.
	Env []string
	// Stderr receives the servers' stderr, each line prefixed with the
	// server name (e.g. a log file); nil keeps only a short tail for errors.
	Stderr io.Writer
	// MaxTools and MaxSchemaTokens are the deferral budget (0 = defaults).
	MaxTools        int
	MaxSchemaTokens int
	// MaxFaults is how many crashes/hangs in a row mark a server failed (0 = 3).
	MaxFaults int
	// Backoff is the wait before restart number n (1-based); nil doubles
	// from 250 ms up to 5 s.
	Backoff func(n int) time.Duration
	// ClientName and ClientVersion identify hew to servers.
	ClientName, ClientVersion string
}

// Manager owns the configured servers. Nothing starts until the first
// Start/Register; then all pending servers start in parallel, each bounded
// by its start-up timeout.
type Manager struct {
	opts     Options
	servers  []*conn // sorted by name
	problems []*ConfigError

	mu       sync.Mutex
	reported bool            // config problems were returned once
	reg      *tools.Registry // where Register put the tools, for late additions
	adapt    func(*ServerTool) tools.Tool

	bg sync.WaitGroup // session watchers and background closes

	// closing ends with Close, cancelling calls still in flight.
	closing     context.Context
	stopCalling context.CancelFunc

	// dial replaces the real transports in tests (in-memory servers).
	dial func(*ServerConfig) (sdk.Transport, error)
}

// NewManager prepares servers without starting any.
func NewManager(cfg *Config, opts Options) *Manager {
	if opts.ClientName == "" {
		opts.ClientName = "hew"
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	if opts.Stderr != nil {
		opts.Stderr = &lockedWriter{w: opts.Stderr}
	}
	m := &Manager{opts: opts}
	m.closing, m.stopCalling = context.WithCancel(context.Background())
	if cfg != nil {
		m.problems = cfg.Problems
		for _, sc := range cfg.Servers {
			m.servers = append(m.servers, newConn(m, sc))
		}
	}
	return m
}

func (m *Manager) baseEnv() []string { return m.opts.Env }

func (m *Manager) maxFaults() int {
	if m.opts.MaxFaults > 0 {
		return m.opts.MaxFaults
	}
	return 3
}

func (m *Manager) backoff(n int) time.Duration {
	if m.opts.Backoff != nil {
		return m.opts.Backoff(n)
	}
	d := 250 * time.Millisecond << (n - 1)
	if n > 6 || d > 5*time.Second {
		d = 5 * time.Second
	}
	return d
}

// Start connects every server not started yet, all in parallel, and returns
// one error per server that failed now (each names the server). It returns
// when every start finished or timed out.
func (m *Manager) Start(ctx context.Context) []error {
	errs := make([]error, len(m.servers))
	sem := make(chan struct{}, maxParallelStarts)
	var wg sync.WaitGroup
	for i, s := range m.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := s.start(ctx); err != nil {
				errs[i] = fmt.Errorf("MCP server %q (%s) failed to start: %v", s.cfg.Name, s.cfg.Source, oneLine(err))
			}
		}()
	}
	wg.Wait()
	var out []error
	for _, e := range errs {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// Register starts the servers (if needed) and adds their tools to reg, each
// made a tools.Tool by adapt (internal/tools/mcp.New). The
// returned errors — configuration problems and failed starts — are each
// returned once, so the caller can print them as one line each; the session
// goes on without those servers. Call it before the first model request,
// never before the prompt appears.
func (m *Manager) Register(ctx context.Context, reg *tools.Registry, adapt func(*ServerTool) tools.Tool) []error {
	var errs []error
	m.mu.Lock()
	if !m.reported {
		m.reported = true
		for _, p := range m.problems {
			errs = append(errs, p)
		}
	}
	m.mu.Unlock()
	errs = append(errs, m.Start(ctx)...)
	m.mu.Lock()
	m.reg, m.adapt = reg, adapt
	m.mu.Unlock()
	for _, t := range m.Tools() {
		reg.Register(adapt(t))
	}
	return errs
}

// registerNew adds tools a server announced after Register. Tools already
// registered stay as they are (the tool list only grows, so the cached
// prefix of earlier requests stays valid); a removed tool answers with the
// server's error.
func (m *Manager) registerNew() {
	m.mu.Lock()
	reg, adapt := m.reg, m.adapt
	m.mu.Unlock()
	if reg == nil {
		return
	}
	for _, t := range m.Tools() {
		if _, ok := reg.Get(t.Name()); !ok {
			reg.Register(adapt(t))
		}
	}
}

// Tools builds the tools of all connected servers in a stable order, marked
// deferred when together they exceed the budget.
func (m *Manager) Tools() []*ServerTool {
	var out []*ServerTool
	taken := map[string]bool{}
	tokens := 0
	for _, s := range m.servers {
		s.mu.Lock()
		list := s.tools
		ok := s.state == StateConnected || s.state == StateDisconnected
		s.mu.Unlock()
		if !ok {
			continue
		}
		for _, st := range list {
			name := ToolName(s.cfg.Name, st.Name)
			if taken[name] {
				name = withHash(truncate(name, MaxNameLen-9), s.cfg.Name, st.Name)
			}
			taken[name] = true
			t := newTool(s, st, name)
			tokens += (len(t.name) + len(t.desc) + len(t.schema)) / 4
			out = append(out, t)
		}
	}
	maxTools, maxTokens := m.opts.MaxTools, m.opts.MaxSchemaTokens
	if maxTools <= 0 {
		maxTools = DefaultMaxTools
	}
	if maxTokens <= 0 {
		maxTokens = DefaultMaxSchemaTokens
	}
	if len(out) > maxTools || tokens > maxTokens {
		for _, t := range out {
			t.deferred = true
		}
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Instructions is what connected servers asked the model to know (their
// initialize instructions), for the dynamic part of the system prompt.
// Empty when no server gave any.
func (m *Manager) Instructions() string {
	var b strings.Builder
	for _, s := range m.servers {
		s.mu.Lock()
		text, ok := s.instructions, s.state == StateConnected || s.state == StateDisconnected
		s.mu.Unlock()
		if !ok || text == "" {
			continue
		}
		if len(text) > 4000 {
			text = text[:4000] + "…"
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "## %s\n%s", s.cfg.Name, text)
	}
	return b.String()
}

// ServerStatus is one server as /status and `hew mcp list` show it.
type ServerStatus struct {
	Name      string `json:"name"`
	Scope     string `json:"scope,omitempty"`
	Source    string `json:"source"`
	Transport string `json:"transport,omitempty"`
	// Target is the command line or URL.
	Target string `json:"target,omitempty"`
	State  string `json:"state"`
	Tools  int    `json:"tools"`
	Error  string `json:"error,omitempty"`
}

// Status reports every configured server, including invalid ones, by name.
func (m *Manager) Status() []ServerStatus {
	var out []ServerStatus
	for _, s := range m.servers {
		s.mu.Lock()
		st := ServerStatus{Name: s.cfg.Name, Scope: s.cfg.Scope, Source: s.cfg.Source, Transport: s.cfg.Transport,
			Target: target(&s.cfg), State: s.state}
		if s.state == StateConnected || s.state == StateDisconnected {
			st.Tools = len(s.tools)
		}
		if s.err != nil && s.state != StateConnected {
			st.Error = oneLine(s.err)
		}
		s.mu.Unlock()
		out = append(out, st)
	}
	for _, p := range m.problems {
		if p.Server != "" {
			out = append(out, ServerStatus{Name: p.Server, Source: p.Path, State: StateInvalid, Error: oneLine(p.Err)})
		}
	}
	sortStatus(out)
	return out
}

func sortStatus(out []ServerStatus) {
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
}

func target(sc *ServerConfig) string {
	if sc.Transport != "stdio" {
		return sc.URL
	}
	return strings.TrimSpace(sc.Command + " " + strings.Join(sc.Args, " "))
}

// Reconnect forgets a server's faults and connects it again (for a /mcp
// command after the user fixed the server).
func (m *Manager) Reconnect(ctx context.Context, name string) error {
	for _, s := range m.servers {
		if s.cfg.Name != name {
			continue
		}
		s.close()
		s.mu.Lock()
		s.state, s.faults, s.err = StatePending, 0, nil
		s.mu.Unlock()
		return s.start(ctx)
	}
	return fmt.Errorf("no MCP server named %q", name)
}

// Close stops every server and waits for their processes to end.
func (m *Manager) Close() error {
	m.stopCalling()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close()
		}()
	}
	wg.Wait()
	m.bg.Wait()
	return nil
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// lockedWriter serialises writes from several servers' stderr copiers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p under the lock.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
