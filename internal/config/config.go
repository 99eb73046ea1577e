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
	"slices"
	"sort"
)

// Paths says where to look for settings.
type Paths struct {
	// Home is $HEW_HOME; its settings.json is the user layer.
	Home string
	// Project is the project root; .hew/settings.json and
	// .hew/settings.local.json are the project and local layers, and its
	// .mcp.json adds servers.
	Project string
	// TrustProject applies the project's widening settings without a
	// stored trust (--trust-project).
	TrustProject bool
	// UserHome expands "~/" in trustedDirectories; empty leaves such
	// entries unused.
	UserHome string
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
	// Checkpoints bounds the per-turn checkpoints behind /undo.
	Checkpoints Checkpoints
	// MemoryFailureCapture writes a feedback memory when the same kind of
	// tool failure repeats (default true).
	MemoryFailureCapture bool
	// MemorySemanticRecall asks the model, in a side request, which
	// memories fit a message (default true).
	MemorySemanticRecall bool
	// Autonomy bounds goals and loops ("goal", "loop").
	Autonomy Autonomy

	// Warnings lists harmless problems (unknown keys), each naming its file.
	Warnings []string
	// Files lists the settings files that were read, lowest layer first.
	Files []string
	// MCPJSONError is set when the project's .mcp.json exists but cannot be
	// read or parsed; its servers are left out, the rest loads.
	MCPJSONError error
	// Trust says whether the project's settings that run code or widen
	// permissions were applied, and lists them.
	Trust Trust

	rules    []RuleEntry
	withheld []RuleEntry
}

// Permissions is the "permissions" object.
type Permissions struct {
	DefaultMode           string
	Allow, Ask, Deny      []string
	AdditionalDirectories []string
}

// Checkpoints is the "checkpoints" object: whether turns are checkpointed
// for /undo and how long (days) and how large (MB) the store may grow.
type Checkpoints struct {
	Enabled    bool
	MaxAgeDays int
	MaxSizeMB  int
}

// Hooks holds hook definitions per event.
type Hooks struct {
	PreToolUse         []Hook
	PostToolUse        []Hook
	PostToolUseFailure []Hook
	UserPromptSubmit   []Hook
	Stop               []Hook
	SubagentStop       []Hook
	PreCompact         []Hook
	SessionStart       []Hook
	SessionEnd         []Hook
}

// HookEvents are the hook events settings may configure (SPEC section 3).
var HookEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop",
	"SubagentStop", "PreCompact", "SessionStart", "SessionEnd"}

// Event returns the hooks of one event by its name.
func (h *Hooks) Event(name string) []Hook {
	if p := h.slot(name); p != nil {
		return *p
	}
	return nil
}

func (h *Hooks) slot(name string) *[]Hook {
	switch name {
	case "PreToolUse":
		return &h.PreToolUse
	case "PostToolUse":
		return &h.PostToolUse
	case "PostToolUseFailure":
		return &h.PostToolUseFailure
	case "UserPromptSubmit":
		return &h.UserPromptSubmit
	case "Stop":
		return &h.Stop
	case "SubagentStop":
		return &h.SubagentStop
	case "PreCompact":
		return &h.PreCompact
	case "SessionStart":
		return &h.SessionStart
	case "SessionEnd":
		return &h.SessionEnd
	}
	return nil
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
		Permissions:          Permissions{DefaultMode: DefaultMode},
		MCPServers:           map[string]MCPServer{},
		Sandbox:              Sandbox{Enabled: true, Network: NetworkAllowlist},
		AutoCompact:          true,
		Bell:                 true,
		CompactThreshold:     DefaultCompactThreshold,
		Checkpoints:          Checkpoints{Enabled: true, MaxAgeDays: 30, MaxSizeMB: 1024},
		MemoryFailureCapture: true,
		MemorySemanticRecall: true,
	}
}

// Notices are the settings' one-line warnings for the start of a run: the
// harmless problems and a .mcp.json that cannot be read.
func (s *Settings) Notices() []string {
	out := append([]string(nil), s.Warnings...)
	if s.MCPJSONError != nil {
		out = append(out, s.MCPJSONError.Error())
	}
	return out
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

// layer is one settings file to read.
type layer struct {
	path    string // file to read
	display string // how messages name it
	// claude, when set, is the .claude/ file read for permissions and hooks
	// when path does not exist.
	claude, claudeDisplay string
	project               bool // a project layer: widening settings need trust
}

func layers(p Paths) []layer {
	var ls []layer
	if p.Home != "" {
		ls = append(ls, layer{path: filepath.Join(p.Home, "settings.json"), display: filepath.Join(p.Home, "settings.json")})
	}
	if p.Project != "" {
		for _, name := range []string{"settings.json", "settings.local.json"} {
			ls = append(ls, layer{
				path: filepath.Join(p.Project, ".hew", name), display: filepath.Join(".hew", name),
				claude: filepath.Join(p.Project, ".claude", name), claudeDisplay: filepath.Join(".claude", name),
				project: true,
			})
		}
	}
	return ls
}

// parsedLayer is a layer that was read.
type parsedLayer struct {
	f       *File
	display string
	data    []byte
	project bool
}

// Load reads and merges $HEW_HOME/settings.json < .hew/settings.json <
// .hew/settings.local.json (each project layer falling back to its
// .claude/ file for permissions and hooks), plus the servers of .mcp.json.
// Missing files are skipped; a file that cannot be read or parsed is an
// error naming it. The project's settings that run code or widen
// permissions apply only when the project is trusted (see Trust).
func Load(p Paths) (*Settings, error) {
	s := Default()
	s.rules = []RuleEntry{}
	var read []parsedLayer
	for _, l := range layers(p) {
		pl, ok, err := readLayer(l)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		read = append(read, pl)
	}
	var trustedDirs []string
	var items []TrustItem
	for _, pl := range read {
		if !pl.project {
			trustedDirs = pl.f.TrustedDirectories
			continue
		}
		if pl.f.TrustedDirectories != nil {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s:%s: trustedDirectories is only read from the user settings (ignored)", pl.display, keyPos(pl.data, "trustedDirectories")))
		}
		_, its := splitWidening(pl.f, pl.display)
		items = append(items, its...)
	}
	mcpJSON, err := readMCPJSON(p.Project)
	if err != nil {
		s.MCPJSONError = err
	} else if mcpJSON != nil {
		_, its := splitWidening(mcpJSON, ".mcp.json")
		items = append(items, its...)
		// Between the shared and the local layer: local settings override
		// .mcp.json, which overrides .hew/settings.json.
		at := len(read)
		for i, pl := range read {
			if pl.project && filepath.Base(pl.display) == "settings.local.json" {
				at = i
			}
		}
		read = slices.Insert(read, at, parsedLayer{f: mcpJSON, display: ".mcp.json", project: true})
	}
	s.Trust = decideTrust(p, items, trustedDirs)
	for _, pl := range read {
		s.Warnings = append(s.Warnings, pl.f.warnings...)
		if pl.display != ".mcp.json" {
			s.Files = append(s.Files, pl.display)
		}
		f := pl.f
		if pl.project && !s.Trust.Applied() {
			if f.Permissions != nil {
				s.withheld = append(s.withheld, ruleEntries(pl.data, "allow", f.Permissions.Allow, pl.display)...)
			}
			f, _ = splitWidening(f, pl.display)
		}
		s.merge(f, pl.display, pl.data)
	}
	return s, nil
}

// readLayer reads one layer's file, or its .claude/ stand-in.
func readLayer(l layer) (parsedLayer, bool, error) {
	data, err := os.ReadFile(l.path)
	if err == nil {
		f, warns, err := Parse(data, l.display)
		if err != nil {
			return parsedLayer{}, false, err
		}
		f.warnings = warns
		return parsedLayer{f: f, display: l.display, data: data, project: l.project}, true, nil
	}
	if !os.IsNotExist(err) {
		return parsedLayer{}, false, fmt.Errorf("reading settings %s: %w", l.display, err)
	}
	if l.claude == "" {
		return parsedLayer{}, false, nil
	}
	data, err = os.ReadFile(l.claude)
	if err != nil {
		if os.IsNotExist(err) {
			return parsedLayer{}, false, nil
		}
		return parsedLayer{}, false, fmt.Errorf("reading settings %s: %w", l.claudeDisplay, err)
	}
	f, warns, err := ParseClaude(data, l.claudeDisplay)
	if err != nil {
		return parsedLayer{}, false, err
	}
	f.warnings = warns
	return parsedLayer{f: f, display: l.claudeDisplay, data: data, project: l.project}, true, nil
}

// readMCPJSON reads the project's .mcp.json as a settings file holding only
// servers; nil when there is none. A broken file is an error to show as a
// warning: its servers are left out, everything else still loads.
func readMCPJSON(root string) (*File, error) {
	if root == "" {
		return nil, nil
	}
	data, err := os.ReadFile(filepath.Join(root, ".mcp.json"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading .mcp.json: %w (its servers are not started)", err)
	}
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%v (its servers are not started)", describe(data, ".mcp.json", err))
	}
	return &File{MCPServers: doc.MCPServers}, nil
}

// decideTrust finds out whether the widening items apply.
func decideTrust(p Paths, items []TrustItem, trustedDirs []string) Trust {
	t := Trust{Root: p.Project, Items: items, Hash: hashItems(items)}
	switch {
	case len(items) == 0:
		t.Status = TrustNothing
	case p.TrustProject:
		t.Status = TrustFlag
	case coveredBy(p.Project, p.UserHome, trustedDirs):
		t.Status = TrustSetting
	default:
		t.Status = TrustUntrusted
		if rec, ok := lookupTrust(p.Home, p.Project); ok {
			t.Since = rec.TrustedAt
			t.Status = TrustChanged
			if rec.Hash == t.Hash {
				t.Status = TrustStored
			}
		}
	}
	return t
}

// ruleEntries gives each rule of one list its file and line:col.
func ruleEntries(data []byte, kind string, list []string, source string) []RuleEntry {
	var out []RuleEntry
	from := keyOffset(data, kind)
	for _, r := range list {
		pos := ""
		if from >= 0 {
			q, _ := json.Marshal(r)
			if i := bytes.Index(data[from:], q); i >= 0 {
				from += i
				pos = lineCol(data, from)
				from += len(q)
			}
		}
		out = append(out, RuleEntry{Kind: kind, Rule: r, Source: source, Pos: pos})
	}
	return out
}

// WithheldRules are the allow rules of an untrusted project, not applied;
// they are still checked, so a mistake in them is reported either way.
func (s *Settings) WithheldRules() []RuleEntry { return s.withheld }

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
	if f.MemoryFailureCapture != nil {
		s.MemoryFailureCapture = *f.MemoryFailureCapture
	}
	if f.MemorySemanticRecall != nil {
		s.MemorySemanticRecall = *f.MemorySemanticRecall
	}
	if c := f.Checkpoints; c != nil {
		if c.Enabled != nil {
			s.Checkpoints.Enabled = *c.Enabled
		}
		if c.MaxAgeDays != nil {
			s.Checkpoints.MaxAgeDays = *c.MaxAgeDays
		}
		if c.MaxSizeMB != nil {
			s.Checkpoints.MaxSizeMB = *c.MaxSizeMB
		}
	}
	if f.CompactThreshold != nil {
		s.CompactThreshold = *f.CompactThreshold
	}
	s.mergeAutonomy(f)
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
			s.rules = append(s.rules, ruleEntries(data, kl.kind, kl.list, source)...)
		}
	}
	if h := f.Hooks; h != nil {
		for _, ev := range h.events() {
			slot := s.Hooks.slot(ev.name)
			for _, hk := range ev.list {
				hk.Source = source
				*slot = append(*slot, hk)
			}
		}
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
