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
}

type filePermissions struct {
	DefaultMode           *string  `json:"defaultMode"`
	Allow                 []string `json:"allow"`
	Ask                   []string `json:"ask"`
	Deny                  []string `json:"deny"`
	AdditionalDirectories []string `json:"additionalDirectories"`
}

type fileHooks struct {
	PreToolUse         []fileHook `json:"PreToolUse"`
	PostToolUse        []fileHook `json:"PostToolUse"`
	PostToolUseFailure []fileHook `json:"PostToolUseFailure"`
}

type fileHook struct {
	Matcher *string  `json:"matcher"`
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"`
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
	topKeys     = []string{"model", "provider", "permissions", "hooks", "mcpServers", "sandbox", "contextWindow", "autoCompact", "compactThreshold", "bell", "$schema"}
	permKeys    = []string{"defaultMode", "allow", "ask", "deny", "additionalDirectories"}
	hookEvents  = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure"}
	hookKeys    = []string{"matcher", "command", "timeout", "type"}
	sandboxKeys = []string{"enabled", "network", "allowedDomains", "deniedDomains"}
)

// Parse decodes one settings file. name is how messages refer to the file.
// It returns the warnings (unknown keys) and an error naming name, line:col
// and the reason for invalid JSON, wrong types or invalid values.
func Parse(data []byte, name string) (*File, []string, error) {
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
	warn(top, topKeys, "")
	if raw, ok := top["permissions"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			warn(m, permKeys, " in permissions")
		}
	}
	if raw, ok := top["sandbox"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			warn(m, sandboxKeys, " in sandbox")
		}
	}
	if raw, ok := top["hooks"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			warn(m, hookEvents, " in hooks")
			for _, ev := range hookEvents {
				var list []map[string]json.RawMessage
				if json.Unmarshal(m[ev], &list) == nil {
					for _, h := range list {
						warn(h, hookKeys, " in hooks."+ev)
					}
				}
			}
		}
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
		for _, ev := range []struct {
			name string
			list []fileHook
		}{{"PreToolUse", h.PreToolUse}, {"PostToolUse", h.PostToolUse}, {"PostToolUseFailure", h.PostToolUseFailure}} {
			for i, hk := range ev.list {
				if strings.TrimSpace(hk.Command) == "" {
					return at(ev.name, "hooks.%s[%d]: \"command\" is missing or empty", ev.name, i)
				}
				if hk.Timeout != nil && *hk.Timeout < 0 {
					return at(ev.name, "hooks.%s[%d]: timeout must not be negative", ev.name, i)
				}
				if hk.Matcher != nil {
					if err := CheckMatcher(*hk.Matcher); err != nil {
						return at(ev.name, "hooks.%s[%d]: matcher %q: %v", ev.name, i, *hk.Matcher, err)
					}
				}
			}
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
	if f.CompactThreshold != nil && (*f.CompactThreshold <= 0 || *f.CompactThreshold > 1) {
		return at("compactThreshold", "compactThreshold must be in (0, 1], got %v", *f.CompactThreshold)
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
