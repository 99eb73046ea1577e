// Package config loads hew's settings files (SPEC section 3) and merges them
// user < project < local, so every other package sees one resolved view and
// every mistake in a file is reported with its file, position and reason.
package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Paths says where to look for settings.
type Paths struct {
	// Home is $HEW_HOME; its settings.json is the user layer.
	Home string
	// Project is the project root; .hew/settings.json and
	// .hew/settings.local.json are the project and local layers.
	Project string
}

// Settings is the merged view of all settings files.
type Settings struct {
	Model    string
	Provider string

	Permissions Permissions
	Hooks       Hooks
	// MCPServers maps a server name to its raw configuration and the file it
	// came from; project layers override user ones of the same name.
	MCPServers map[string]MCPServer
	Sandbox    Sandbox

	// ContextWindow overrides the model's context window when > 0.
	ContextWindow int
	// AutoCompact enables automatic compaction (default true).
	AutoCompact bool
	// CompactThreshold is the fraction of the window that triggers
	// auto-compaction (default 0.85).
	CompactThreshold float64
	// Bell rings the terminal bell when a long turn ends or a question
	// waits (default true).
	Bell bool

	// Warnings lists harmless problems (unknown keys), each naming its file.
	Warnings []string
	// Files lists the settings files that were read, lowest layer first.
	Files []string

	rules []RuleEntry
}

// Permissions is the "permissions" object.
type Permissions struct {
	DefaultMode           string
	Allow, Ask, Deny      []string
	AdditionalDirectories []string
}

// Hooks holds hook definitions per event.
type Hooks struct {
	PreToolUse         []Hook
	PostToolUse        []Hook
	PostToolUseFailure []Hook
}

// Hook is one configured hook command.
type Hook struct {
	Matcher string
	Command string
	// Timeout in seconds; 0 means the runner's default.
	Timeout float64
	// Source is the settings file the hook came from.
	Source string
}

// MCPServer is one MCP server definition kept raw for the MCP package.
type MCPServer struct {
	Name   string
	Raw    json.RawMessage
	Source string
}

// Sandbox is the "sandbox" object.
type Sandbox struct {
	Enabled bool
	// Network is one of NetworkOff, NetworkAll, NetworkAllowlist.
	Network string
	// AllowedDomains and DeniedDomains are domain patterns ("host",
	// "*.example.com") for the allowlist proxy, concatenated over layers.
	AllowedDomains []string
	DeniedDomains  []string
}

// sandbox.network values (SPEC section 3): false, true or "allowlist".
const (
	NetworkOff       = "false"
	NetworkAll       = "true"
	NetworkAllowlist = "allowlist"
)

// RuleEntry is one permission rule with the list it belongs to and the file
// it came from, so decisions can name both.
type RuleEntry struct {
	Kind   string // allow | ask | deny
	Rule   string
	Source string
	// Pos is "line:col" of the rule in Source, when known.
	Pos string
}

// Where is the rule's source with its position, for error messages.
func (r RuleEntry) Where() string {
	if r.Pos == "" {
		return r.Source
	}
	return r.Source + ":" + r.Pos
}

// Defaults for settings that have them.
const (
	DefaultCompactThreshold = 0.85
	DefaultMode             = "default"
)

// ValidModes are the accepted permissions.defaultMode values (SPEC section 4).
var ValidModes = []string{"default", "plan", "acceptEdits", "bypassPermissions", "dontAsk", "auto"}

// Default returns settings with nothing configured.
func Default() *Settings {
	return &Settings{
		Permissions:      Permissions{DefaultMode: DefaultMode},
		MCPServers:       map[string]MCPServer{},
		Sandbox:          Sandbox{Enabled: true, Network: NetworkAllowlist},
		AutoCompact:      true,
		Bell:             true,
		CompactThreshold: DefaultCompactThreshold,
	}
}

// Rules returns every permission rule with its kind and source file, in
// layer order. Settings built by hand (tests) report source "settings".
func (s *Settings) Rules() []RuleEntry {
	if s == nil {
		return nil
	}
	if s.rules != nil {
		return s.rules
	}
	var out []RuleEntry
	add := func(kind string, list []string) {
		for _, r := range list {
			out = append(out, RuleEntry{Kind: kind, Rule: r, Source: "settings"})
		}
	}
	add("deny", s.Permissions.Deny)
	add("ask", s.Permissions.Ask)
	add("allow", s.Permissions.Allow)
	return out
}

// Layer names a settings file to read and how to show it in messages.
type layer struct {
	path    string // file to read
	display string // how messages name it
}

func layers(p Paths) []layer {
	var ls []layer
	if p.Home != "" {
		ls = append(ls, layer{filepath.Join(p.Home, "settings.json"), filepath.Join(p.Home, "settings.json")})
	}
	if p.Project != "" {
		ls = append(ls,
			layer{filepath.Join(p.Project, ".hew", "settings.json"), filepath.Join(".hew", "settings.json")},
			layer{filepath.Join(p.Project, ".hew", "settings.local.json"), filepath.Join(".hew", "settings.local.json")},
		)
	}
	return ls
}

// Load reads and merges $HEW_HOME/settings.json < .hew/settings.json <
// .hew/settings.local.json. Missing files are skipped; a file that cannot be
// read or parsed is an error naming it.
func Load(p Paths) (*Settings, error) {
	s := Default()
	s.rules = []RuleEntry{}
	for _, l := range layers(p) {
		data, err := os.ReadFile(l.path)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, fmt.Errorf("reading settings %s: %w", l.display, err)
		}
		f, warns, err := Parse(data, l.display)
		if err != nil {
			return nil, err
		}
		s.Warnings = append(s.Warnings, warns...)
		s.Files = append(s.Files, l.display)
		s.merge(f, l.display, data)
	}
	return s, nil
}

// merge applies one parsed file on top of s.
func (s *Settings) merge(f *File, source string, data []byte) {
	if f.Model != nil {
		s.Model = *f.Model
	}
	if f.Provider != nil {
		s.Provider = *f.Provider
	}
	if f.ContextWindow != nil {
		s.ContextWindow = *f.ContextWindow
	}
	if f.AutoCompact != nil {
		s.AutoCompact = *f.AutoCompact
	}
	if f.Bell != nil {
		s.Bell = *f.Bell
	}
	if f.CompactThreshold != nil {
		s.CompactThreshold = *f.CompactThreshold
	}
	if pm := f.Permissions; pm != nil {
		if pm.DefaultMode != nil {
			s.Permissions.DefaultMode = *pm.DefaultMode
		}
		s.Permissions.Allow = append(s.Permissions.Allow, pm.Allow...)
		s.Permissions.Ask = append(s.Permissions.Ask, pm.Ask...)
		s.Permissions.Deny = append(s.Permissions.Deny, pm.Deny...)
		s.Permissions.AdditionalDirectories = append(s.Permissions.AdditionalDirectories, pm.AdditionalDirectories...)
		for _, kl := range []struct {
			kind string
			list []string
		}{{"deny", pm.Deny}, {"ask", pm.Ask}, {"allow", pm.Allow}} {
			from := keyOffset(data, kl.kind)
			for _, r := range kl.list {
				pos := ""
				if from >= 0 {
					q, _ := json.Marshal(r)
					if i := bytes.Index(data[from:], q); i >= 0 {
						from += i
						pos = lineCol(data, from)
						from += len(q)
					}
				}
				s.rules = append(s.rules, RuleEntry{Kind: kl.kind, Rule: r, Source: source, Pos: pos})
			}
		}
	}
	if h := f.Hooks; h != nil {
		conv := func(in []fileHook) []Hook {
			out := make([]Hook, 0, len(in))
			for _, fh := range in {
				hk := Hook{Command: fh.Command, Source: source}
				if fh.Matcher != nil {
					hk.Matcher = *fh.Matcher
				}
				if fh.Timeout != nil {
					hk.Timeout = *fh.Timeout
				}
				out = append(out, hk)
			}
			return out
		}
		s.Hooks.PreToolUse = append(s.Hooks.PreToolUse, conv(h.PreToolUse)...)
		s.Hooks.PostToolUse = append(s.Hooks.PostToolUse, conv(h.PostToolUse)...)
		s.Hooks.PostToolUseFailure = append(s.Hooks.PostToolUseFailure, conv(h.PostToolUseFailure)...)
	}
	names := make([]string, 0, len(f.MCPServers))
	for name := range f.MCPServers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s.MCPServers[name] = MCPServer{Name: name, Raw: f.MCPServers[name], Source: source}
	}
	if sb := f.Sandbox; sb != nil {
		if sb.Enabled != nil {
			s.Sandbox.Enabled = *sb.Enabled
		}
		if mode, ok := networkMode(sb.Network); ok {
			s.Sandbox.Network = mode
		}
		s.Sandbox.AllowedDomains = append(s.Sandbox.AllowedDomains, sb.AllowedDomains...)
		s.Sandbox.DeniedDomains = append(s.Sandbox.DeniedDomains, sb.DeniedDomains...)
	}
}
