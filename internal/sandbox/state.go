package sandbox

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hew-dev/hew/internal/netproxy"
)

// Settings values of sandbox.network (SPEC section 3), as config gives them.
const (
	SettingOff       = "false"
	SettingAll       = "true"
	SettingAllowlist = "allowlist"
)

// Options configure a session's Sandbox.
type Options struct {
	// Policy gives the writable directories and the helper binary; its
	// network fields are filled in by the Sandbox.
	Policy Policy
	// Enabled is sandbox.enabled without --no-sandbox; DisabledBy says
	// which turned it off ("--no-sandbox" or a settings file).
	Enabled    bool
	DisabledBy string
	// Network is sandbox.network: SettingOff, SettingAll or
	// SettingAllowlist (the default when empty).
	Network string
	// Rules are the domain lists of the allowlist proxy.
	Rules netproxy.Rules
	// Ask puts an unknown domain to the user; nil denies (headless).
	Ask func(ctx context.Context, q netproxy.Question) netproxy.Answer
	// Notify shows the user a one-line notice (once per session for a
	// blocked command).
	Notify func(text string)
	// OnReceipt receives every proxied connection's receipt.
	OnReceipt func(netproxy.Receipt)
	// Resolve replaces the proxy's resolver (tests).
	Resolve netproxy.Resolver
	// NoNamespace skips the network-namespace path (tests of the
	// Landlock fallback).
	NoNamespace bool
}

// Enforcement names how the allowlist is enforced.
const (
	EnforceNamespace = "network namespace"
	EnforceLandlock  = "Landlock TCP rule"
)

// State is what the sandbox does in this session, for doctor, /status,
// the prompt and the first run's notice.
type State struct {
	// Confined is true when shell commands run in the sandbox.
	Confined bool
	// Why explains an unconfined state, or describes the mechanism.
	Why string
	// Network is the effective network mode of confined commands.
	Network NetMode
	// Enforcement is how NetProxy is enforced (EnforceNamespace or
	// EnforceLandlock), and EnforcementWhy the probe's words.
	Enforcement    string
	EnforcementWhy string
	// Warning is a one-line notice for the start of a run ("" when the
	// sandbox is fully in force).
	Warning string
}

// Sandbox is one session's confinement of run_shell: it decides the mode
// (probing the kernel once, on first use), runs the proxy when the network
// is limited to allowed domains, and explains refusals in tool results.
type Sandbox struct {
	opts Options

	stateOnce sync.Once
	state     State

	proxyMu  sync.Mutex
	proxy    *netproxy.Proxy
	proxyErr error

	noticeOnce sync.Once
	warnOnce   sync.Once
}

// New returns a Sandbox; it probes and starts nothing yet.
func New(o Options) *Sandbox {
	if o.Network == "" {
		o.Network = SettingAllowlist
	}
	return &Sandbox{opts: o}
}

// SetFront sets who is asked about unknown domains and told about blocked
// commands, for callers that know them only after New; call it before the
// first command.
func (s *Sandbox) SetFront(ask func(ctx context.Context, q netproxy.Question) netproxy.Answer, notify func(text string)) {
	s.opts.Ask, s.opts.Notify = ask, notify
}

// ConfinesNetwork reports whether confined commands will have the network
// off or limited to allowed domains (what makes builds and tests safe to
// run unasked). It probes only where Landlock cannot restrict TCP.
func (s *Sandbox) ConfinesNetwork() bool {
	if !s.opts.Enabled || s.opts.Network == SettingAll {
		return false
	}
	if ok, _ := Available(); !ok {
		return false
	}
	if abiVersion() >= 4 {
		return true
	}
	st := s.State()
	return st.Network == NetProxy
}

// State decides (once) how commands will run.
func (s *Sandbox) State() State {
	s.stateOnce.Do(func() { s.state = s.decide() })
	return s.state
}

func (s *Sandbox) decide() State {
	if !s.opts.Enabled {
		by := s.opts.DisabledBy
		if by == "" {
			by = "sandbox.enabled is false in settings"
		}
		return State{Why: "turned off (" + by + ")", Warning: s.StartupWarning()}
	}
	ok, why := Available()
	if !ok {
		return State{Why: why, Warning: s.StartupWarning()}
	}
	st := State{Confined: true, Why: why}
	abi := abiVersion()
	switch s.opts.Network {
	case SettingAll:
		st.Network = NetAll
	case SettingOff:
		st.Network = NetOff
		if abi < 4 {
			st.Warning = "sandbox confines writes only: this kernel's Landlock cannot block the network"
		}
	default:
		st.Network = NetProxy
		nsOK, nsWhy := false, "skipped"
		if !s.opts.NoNamespace {
			nsOK, nsWhy = NamespaceAvailable()
		}
		switch {
		case nsOK:
			st.Enforcement, st.EnforcementWhy = EnforceNamespace, nsWhy
		case abi >= 4:
			st.Enforcement, st.EnforcementWhy = EnforceLandlock, "TCP only to the proxy's port ("+nsWhy+"); UDP is not confined by this kernel"
			if abi >= 10 {
				st.EnforcementWhy = "TCP only to the proxy's port (" + nsWhy + ")"
			}
		default:
			st.Network = NetAll
			st.Warning = "sandbox confines writes only: no user namespaces (" + nsWhy + ") and this kernel's Landlock cannot limit the network"
		}
	}
	return st
}

// StartupWarning is the notice for the start of a run, decided without
// probing anything: "" when the sandbox will be in force. A weaker state
// found on first use is told then, through Notify.
func (s *Sandbox) StartupWarning() string {
	if !s.opts.Enabled {
		by := s.opts.DisabledBy
		if by == "" {
			by = "sandbox.enabled is false in settings"
		}
		return "sandbox off (" + by + "): shell commands run unconfined"
	}
	if ok, why := Available(); !ok {
		return "sandbox unavailable (" + why + "): shell commands run unconfined; `hew doctor` says more"
	}
	if s.opts.Network == SettingOff && abiVersion() < 4 {
		return "sandbox confines writes only: this kernel's Landlock cannot block the network"
	}
	return ""
}

// Wrap is the argv rewriter for execx.Runner: it runs the command through
// the helper under the session's policy, or leaves it alone when the
// sandbox is not in force.
func (s *Sandbox) Wrap(argv []string) ([]string, error) {
	st := s.State()
	if !st.Confined {
		return argv, nil
	}
	p := s.opts.Policy
	p.Network, p.Net = st.Network == NetAll, st.Network
	if st.Network == NetProxy {
		px, err := s.Proxy()
		if err != nil {
			return nil, err
		}
		p.ProxyPort, p.Namespace = px.Port(), st.Enforcement == EnforceNamespace
	}
	return Wrapper(p)(argv)
}

// Proxy starts the allowlist proxy on first use and returns it.
func (s *Sandbox) Proxy() (*netproxy.Proxy, error) {
	s.proxyMu.Lock()
	defer s.proxyMu.Unlock()
	if s.proxy == nil && s.proxyErr == nil {
		s.proxy, s.proxyErr = netproxy.Start(netproxy.Config{
			Rules: s.opts.Rules, Ask: s.opts.Ask, Resolve: s.opts.Resolve, OnReceipt: s.opts.OnReceipt,
		})
	}
	return s.proxy, s.proxyErr
}

// running returns the proxy if it was started.
func (s *Sandbox) running() *netproxy.Proxy {
	s.proxyMu.Lock()
	defer s.proxyMu.Unlock()
	return s.proxy
}

// Close stops the proxy, if it runs.
func (s *Sandbox) Close() error {
	if p := s.running(); p != nil {
		return p.Close()
	}
	return nil
}

// Used lists the domains commands reached this session (for /status).
func (s *Sandbox) Used() []netproxy.DomainUse {
	if p := s.running(); p != nil {
		return p.Used()
	}
	return nil
}

// Describe is the sandbox state in one line for the system prompt's
// environment block ("Sandbox: " + Describe()). It probes nothing unless
// the kernel is too old for Landlock's network rules.
func (s *Sandbox) Describe() string {
	if w := s.StartupWarning(); !s.opts.Enabled || w != "" && !strings.HasPrefix(w, "sandbox confines writes only") {
		ok, why := Available()
		if !s.opts.Enabled {
			why = "turned off: " + s.opts.DisabledBy
			if s.opts.DisabledBy == "" {
				why = "turned off in settings"
			}
		} else if ok {
			why = w
		}
		return "off (" + why + "); shell commands run unconfined, so take care with writes outside the project"
	}
	net := map[string]NetMode{SettingOff: NetOff, SettingAll: NetAll}[s.opts.Network]
	if net == "" {
		net = NetProxy
		if abiVersion() < 4 {
			net = s.State().Network
		}
	} else if net == NetOff && abiVersion() < 4 {
		net = NetAll
	}
	w := "on: commands may write only in the project, the temp directory, additional directories and tool caches (elsewhere: permission denied)"
	switch net {
	case NetOff:
		return w + "; network off (connections fail)"
	case NetAll:
		return w + "; network not restricted"
	}
	return w + "; network only through hew's proxy (HTTP(S)_PROXY and ALL_PROXY are set) to allowed domains: package registries and source hosts are allowed, other domains need the user's approval, direct connections and DNS fail"
}

// StatusLines describe the sandbox for `hew doctor` and /status.
func (s *Sandbox) StatusLines() []string {
	st := s.State()
	if !st.Confined {
		return []string{"sandbox: " + st.Why + "; shell commands run unconfined"}
	}
	lines := []string{"sandbox: on (" + st.Why + "); writes confined to " + strings.Join(s.opts.Policy.Writable(), ", ")}
	switch st.Network {
	case NetOff:
		lines = append(lines, "sandbox network: off")
	case NetAll:
		lines = append(lines, "sandbox network: unrestricted")
	default:
		l := "sandbox network: allowlist, enforced by " + st.Enforcement + " (" + st.EnforcementWhy + ")"
		if p := s.running(); p != nil {
			l += fmt.Sprintf("; proxy on 127.0.0.1:%d", p.Port())
		}
		lines = append(lines, l)
		if used := s.Used(); len(used) > 0 {
			var parts []string
			for _, u := range used {
				parts = append(parts, fmt.Sprintf("%s (%s, %d conn, ↓%s)", u.Host, u.By, u.Connections, netproxy.Bytes(u.Down)))
			}
			lines = append(lines, "domains reached this session: "+strings.Join(parts, ", "))
		}
	}
	return lines
}
