package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// File is one settings file as written; nil pointers mean "not set", so a
// later layer only overrides what it actually mentions.
type File struct {
	Model            *string                    `json:"model"`
	Provider         *string                    `json:"provider"`
	Permissions      *filePermissions           `json:"permissions"`
	Hooks            *fileHooks                 `json:"hooks"`
	MCPServers       map[string]json.RawMessage `json:"mcpServers"`
	Sandbox          *fileSandbox               `json:"sandbox"`
	ContextWindow    *int                       `json:"contextWindow"`
	AutoCompact      *bool                      `json:"autoCompact"`
	CompactThreshold *float64                   `json:"compactThreshold"`
	Bell             *bool                      `json:"bell"`
	Checkpoints      *fileCheckpoints           `json:"checkpoints"`
	// MemoryFailureCapture and MemorySemanticRecall switch off parts of
	// long-term memory (internal/memory).
	MemoryFailureCapture *bool     `json:"memoryFailureCapture"`
	MemorySemanticRecall *bool     `json:"memorySemanticRecall"`
	Goal                 *fileGoal `json:"goal"`
	Loop                 *fileLoop `json:"loop"`
	// TrustedDirectories (user settings only) trusts every project at or
	// under these directories.
	TrustedDirectories []string `json:"trustedDirectories"`

	warnings []string
}

type fileCheckpoints struct {
	Enabled    *bool `json:"enabled"`
	MaxAgeDays *int  `json:"maxAgeDays"`
	MaxSizeMB  *int  `json:"maxSizeMB"`
}

type filePermissions struct {
	DefaultMode           *string  `json:"defaultMode"`
	Allow                 []string `json:"allow"`
	Ask                   []string `json:"ask"`
	Deny                  []string `json:"deny"`
	AdditionalDirectories []string `json:"additionalDirectories"`
}

// fileHooks holds every event's entries as written.
type fileHooks struct {
	PreToolUse         []fileHook `json:"PreToolUse"`
	PostToolUse        []fileHook `json:"PostToolUse"`
	PostToolUseFailure []fileHook `json:"PostToolUseFailure"`
	UserPromptSubmit   []fileHook `json:"UserPromptSubmit"`
	Stop               []fileHook `json:"Stop"`
	SubagentStop       []fileHook `json:"SubagentStop"`
	PreCompact         []fileHook `json:"PreCompact"`
	SessionStart       []fileHook `json:"SessionStart"`
	SessionEnd         []fileHook `json:"SessionEnd"`
}

// fileHook is one entry: hew's flat form {matcher, command, timeout} or
// Claude Code's nested form {matcher, hooks: [{type, command, timeout}]}.
type fileHook struct {
	Matcher *string       `json:"matcher"`
	Type    string        `json:"type"`
	Command string        `json:"command"`
	Timeout *float64      `json:"timeout"`
	Hooks   []fileHookCmd `json:"hooks"`
}

// fileHookCmd is one command of a nested entry.
type fileHookCmd struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"`
}

// eventHooks is one event's hooks, flattened.
type eventHooks struct {
	name string
	list []Hook
}

// events flattens every event's entries (nested ones into one hook per
// command, each with the entry's matcher), in HookEvents order.
func (h *fileHooks) events() []eventHooks {
	lists := [][]fileHook{h.PreToolUse, h.PostToolUse, h.PostToolUseFailure, h.UserPromptSubmit, h.Stop,
		h.SubagentStop, h.PreCompact, h.SessionStart, h.SessionEnd}
	out := make([]eventHooks, 0, len(lists))
	for i, list := range lists {
		ev := eventHooks{name: HookEvents[i]}
		for _, fh := range list {
			m := ""
			if fh.Matcher != nil {
				m = *fh.Matcher
			}
			if len(fh.Hooks) == 0 {
				ev.list = append(ev.list, Hook{Matcher: m, Command: fh.Command, Timeout: deref(fh.Timeout)})
			}
			for _, c := range fh.Hooks {
				ev.list = append(ev.list, Hook{Matcher: m, Command: c.Command, Timeout: deref(c.Timeout)})
			}
		}
		if len(ev.list) > 0 {
			out = append(out, ev)
		}
	}
	return out
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

type fileSandbox struct {
	Enabled        *bool           `json:"enabled"`
	Network        json.RawMessage `json:"network"`
	AllowedDomains []string        `json:"allowedDomains"`
	DeniedDomains  []string        `json:"deniedDomains"`
}

// networkMode reads sandbox.network: false, true or "allowlist"; ok is
// false when the key is absent or invalid.
func networkMode(raw json.RawMessage) (string, bool) {
	switch strings.TrimSpace(string(raw)) {
	case "false":
		return NetworkOff, true
	case "true":
		return NetworkAll, true
	case `"allowlist"`:
		return NetworkAllowlist, true
	}
	return "", false
}

// Known keys per object, for unknown-key warnings.
var (
	topKeys     = []string{"model", "provider", "permissions", "hooks", "mcpServers", "sandbox", "contextWindow", "autoCompact", "compactThreshold", "bell", "checkpoints", "goal", "loop", "trustedDirectories", "memoryFailureCapture", "memorySemanticRecall", "$schema"}
	permKeys    = []string{"defaultMode", "allow", "ask", "deny", "additionalDirectories"}
	hookKeys    = []string{"matcher", "command", "timeout", "type", "hooks"}
	hookCmdKeys = []string{"type", "command", "timeout"}
	sandboxKeys = []string{"enabled", "network", "allowedDomains", "deniedDomains"}
	ckptKeys    = []string{"enabled", "maxAgeDays", "maxSizeMB"}
)

// Parse decodes one settings file. name is how messages refer to the file.
// It returns the warnings (unknown keys) and an error naming name, line:col
// and the reason for invalid JSON, wrong types or invalid values.
func Parse(data []byte, name string) (*File, []string, error) {
	return parse(data, name, false)
}

// ParseClaude decodes a Claude Code settings file (.claude/settings.json)
// for what hew takes from it: "permissions" and "hooks". Its other keys
// belong to Claude Code and are skipped silently; hooks of a kind hew does
// not run (not "command") and events it does not know are skipped with a
// warning. Positions in messages refer to the file as written.
func ParseClaude(data []byte, name string) (*File, []string, error) {
	return parse(keepOnly(data, "permissions", "hooks"), name, true)
}

// keepOnly blanks the values of every other top-level key, keeping every
// byte offset (and so every line:col) of what is left. Invalid JSON is
// returned unchanged for Parse to report.
func keepOnly(data []byte, keys ...string) []byte {
	out := append([]byte(nil), data...)
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return data
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return data
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return data
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		if slices.Contains(keys, key) || len(raw) < 4 {
			continue
		}
		copy(out[start:], "null")
		for i := start + 4; i < end; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
	return out
}

func parse(data []byte, name string, claude bool) (*File, []string, error) {
	f := &File{}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil, nil
	}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, nil, describe(data, name, err)
	}
	// A top-level value that is not an object decodes without error only
	// for null; reject it so a stray "null" or "[]" is not silently empty.
	if t := bytes.TrimSpace(data); t[0] != '{' {
		return nil, nil, fmt.Errorf("%s:1:1: settings must be a JSON object", name)
	}
	var warns []string
	warn := func(obj map[string]json.RawMessage, known []string, where string) {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !slices.Contains(known, k) {
				warns = append(warns, fmt.Sprintf("%s:%s: unknown key %q%s (ignored)", name, keyPos(data, k), k, where))
			}
		}
	}
	var top map[string]json.RawMessage
	_ = json.Unmarshal(data, &top)
	if !claude {
		warn(top, topKeys, "")
	}
	if raw, ok := top["permissions"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			warn(m, permKeys, " in permissions")
		}
	}
	for _, k := range []struct {
		key   string
		known []string
	}{{"goal", goalKeys}, {"loop", loopKeys}} {
		var m map[string]json.RawMessage
		if raw, ok := top[k.key]; ok && json.Unmarshal(raw, &m) == nil {
			warn(m, k.known, " in "+k.key)
		}
	}
	if raw, ok := top["sandbox"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			warn(m, sandboxKeys, " in sandbox")
		}
	}
	if raw, ok := top["checkpoints"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			warn(m, ckptKeys, " in checkpoints")
		}
	}
	if raw, ok := top["hooks"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			warn(m, HookEvents, " in hooks")
			for _, ev := range HookEvents {
				var list []map[string]json.RawMessage
				if json.Unmarshal(m[ev], &list) == nil {
					for _, h := range list {
						warn(h, hookKeys, " in hooks."+ev)
						var cmds []map[string]json.RawMessage
						if json.Unmarshal(h["hooks"], &cmds) == nil {
							for _, c := range cmds {
								warn(c, hookCmdKeys, " in hooks."+ev+"[].hooks")
							}
						}
					}
				}
			}
		}
	}
	if claude && f.Hooks != nil {
		warns = append(warns, dropOtherHooks(f.Hooks, name)...)
	}
	if err := validate(f, data, name); err != nil {
		return nil, nil, err
	}
	return f, warns, nil
}

// validate checks values the JSON types alone do not constrain.
func validate(f *File, data []byte, name string) error {
	at := func(key, format string, args ...any) error {
		return fmt.Errorf("%s:%s: %s", name, keyPos(data, key), fmt.Sprintf(format, args...))
	}
	if p := f.Permissions; p != nil {
		if p.DefaultMode != nil && !slices.Contains(ValidModes, *p.DefaultMode) {
			return at("defaultMode", "permissions.defaultMode %q is not one of %s", *p.DefaultMode, strings.Join(ValidModes, ", "))
		}
		for _, d := range p.AdditionalDirectories {
			if strings.TrimSpace(d) == "" {
				return at("additionalDirectories", "permissions.additionalDirectories has an empty entry")
			}
		}
	}
	if h := f.Hooks; h != nil {
		if err := validateHooks(h, at); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(f.MCPServers))
	for n := range f.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		raw := bytes.TrimSpace(f.MCPServers[n])
		if len(raw) == 0 || raw[0] != '{' {
			return at(n, "mcpServers.%s must be an object", n)
		}
	}
	if sb := f.Sandbox; sb != nil {
		if len(sb.Network) > 0 && string(sb.Network) != "null" {
			if _, ok := networkMode(sb.Network); !ok {
				return at("network", `sandbox.network must be false, true or "allowlist", got %s`, sb.Network)
			}
		}
		for _, list := range []struct {
			key     string
			domains []string
		}{{"allowedDomains", sb.AllowedDomains}, {"deniedDomains", sb.DeniedDomains}} {
			for _, d := range list.domains {
				if err := CheckDomainPattern(d); err != nil {
					return at(list.key, "sandbox.%s: %v", list.key, err)
				}
			}
		}
	}
	if f.ContextWindow != nil && *f.ContextWindow < 0 {
		return at("contextWindow", "contextWindow must not be negative")
	}
	if c := f.Checkpoints; c != nil {
		if c.MaxAgeDays != nil && *c.MaxAgeDays < 1 {
			return at("maxAgeDays", "checkpoints.maxAgeDays must be at least 1, got %d", *c.MaxAgeDays)
		}
		if c.MaxSizeMB != nil && *c.MaxSizeMB < 1 {
			return at("maxSizeMB", "checkpoints.maxSizeMB must be at least 1, got %d", *c.MaxSizeMB)
		}
	}
	if f.CompactThreshold != nil && (*f.CompactThreshold <= 0 || *f.CompactThreshold > 1) {
		return at("compactThreshold", "compactThreshold must be in (0, 1], got %v", *f.CompactThreshold)
	}
	return nil
}

// dropOtherHooks removes the hooks of a Claude Code file that are not
// commands (prompt hooks), with a warning each.
func dropOtherHooks(h *fileHooks, name string) []string {
	var warns []string
	for n, list := range []*[]fileHook{&h.PreToolUse, &h.PostToolUse, &h.PostToolUseFailure, &h.UserPromptSubmit, &h.Stop,
		&h.SubagentStop, &h.PreCompact, &h.SessionStart, &h.SessionEnd} {
		kept := (*list)[:0]
		for _, fh := range *list {
			var cmds []fileHookCmd
			for _, c := range fh.Hooks {
				if c.Type == "" || c.Type == "command" {
					cmds = append(cmds, c)
				} else {
					warns = append(warns, fmt.Sprintf("%s: a %q hook of %s is not run by hew (only command hooks; skipped)", name, c.Type, HookEvents[n]))
				}
			}
			if fh.Hooks != nil && len(cmds) == 0 {
				continue
			}
			if fh.Hooks != nil {
				fh.Hooks = cmds
			}
			if fh.Type != "" && fh.Type != "command" {
				warns = append(warns, fmt.Sprintf("%s: a %q hook of %s is not run by hew (only command hooks; skipped)", name, fh.Type, HookEvents[n]))
				continue
			}
			kept = append(kept, fh)
		}
		*list = kept
	}
	return warns
}

// validateHooks checks every entry of every event: a flat entry needs a
// command, a nested one a non-empty list of command hooks, never both.
func validateHooks(h *fileHooks, at func(key, format string, args ...any) error) error {
	lists := [][]fileHook{h.PreToolUse, h.PostToolUse, h.PostToolUseFailure, h.UserPromptSubmit, h.Stop,
		h.SubagentStop, h.PreCompact, h.SessionStart, h.SessionEnd}
	for n, list := range lists {
		ev := HookEvents[n]
		for i, hk := range list {
			where := fmt.Sprintf("hooks.%s[%d]", ev, i)
			if hk.Matcher != nil {
				if err := CheckMatcher(*hk.Matcher); err != nil {
					return at(ev, "%s: matcher %q: %v", where, *hk.Matcher, err)
				}
			}
			if hk.Hooks != nil {
				if hk.Command != "" {
					return at(ev, "%s: give either \"command\" (hew's form) or \"hooks\" (Claude Code's form), not both", where)
				}
				if len(hk.Hooks) == 0 {
					return at(ev, "%s: \"hooks\" is empty", where)
				}
				for j, c := range hk.Hooks {
					if err := checkHookCmd(c.Type, c.Command, c.Timeout); err != nil {
						return at(ev, "%s.hooks[%d]: %v", where, j, err)
					}
				}
				continue
			}
			if err := checkHookCmd(hk.Type, hk.Command, hk.Timeout); err != nil {
				return at(ev, "%s: %v", where, err)
			}
		}
	}
	return nil
}

func checkHookCmd(typ, command string, timeout *float64) error {
	if typ != "" && typ != "command" {
		return fmt.Errorf("type %q is not supported (only \"command\" hooks run)", typ)
	}
	if strings.TrimSpace(command) == "" {
		return errors.New("\"command\" is missing or empty")
	}
	if timeout != nil && *timeout < 0 {
		return errors.New("timeout must not be negative")
	}
	return nil
}

// CheckDomainPattern reports whether d is a usable sandbox domain pattern:
// a host name, "*." followed by one, or an IP address. (The proxy matches
// them; the check lives here so a bad pattern is a settings error.)
func CheckDomainPattern(d string) error {
	host := strings.TrimPrefix(d, "*.")
	if host == "" || strings.TrimSpace(d) != d {
		return fmt.Errorf("%q is not a domain (want \"example.com\" or \"*.example.com\")", d)
	}
	if strings.Contains(host, "*") {
		return fmt.Errorf("%q: a wildcard is allowed only as a leading \"*.\"", d)
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == ':' || r == '_') {
			return fmt.Errorf("%q contains %q, which no domain has", d, r)
		}
	}
	return nil
}

// CheckMatcher reports whether a hook matcher is usable: empty or "*"
// (all tools), a plain tool name, or a regular expression.
func CheckMatcher(m string) error {
	if m == "" || m == "*" {
		return nil
	}
	_, err := regexp.Compile("^(?:" + m + ")$")
	return err
}

// describe turns a json error into "file:line:col: reason".
func describe(data []byte, name string, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s:%s: invalid JSON: %w", name, lineCol(data, int(se.Offset)), err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "settings"
		}
		// Offset points just past the offending value; step back onto it.
		off := int(te.Offset)
		if off > 0 {
			off--
		}
		return fmt.Errorf("%s:%s: %s: expected %s, got JSON %s", name, lineCol(data, off), field, goTypeName(te.Type.String()), te.Value)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// goTypeName turns a Go type into words a settings author understands.
func goTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(goTypeName(strings.TrimPrefix(t, "[]")), "a "), "an ") + "s"
	case strings.HasPrefix(t, "map["):
		return "an object"
	case strings.HasPrefix(t, "*"):
		return goTypeName(t[1:])
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case t == "int", t == "float64":
		return "a number"
	case strings.Contains(t, "config."):
		return "an object"
	}
	return t
}

// lineCol renders a byte offset as "line:col" (1-based; col counts bytes).
func lineCol(data []byte, off int) string {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("%d:%d", line, col)
}

// keyOffset is the byte offset where "key" first appears as an object key,
// or -1.
func keyOffset(data []byte, key string) int {
	q, _ := json.Marshal(key)
	idx := 0
	for {
		i := bytes.Index(data[idx:], q)
		if i < 0 {
			return -1
		}
		j := idx + i + len(q)
		rest := bytes.TrimLeft(data[j:], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return idx + i
		}
		idx = j
	}
}

// keyPos finds where "key" first appears as an object key.
func keyPos(data []byte, key string) string {
	if off := keyOffset(data, key); off >= 0 {
		return lineCol(data, off)
	}
	return "1:1"
}
