package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// A cloned repository must not be able to run code or widen what hew may
// do just by being opened. The project layers (.hew/settings*.json, their
// .claude/ stand-ins and .mcp.json) are therefore split: whatever only
// tightens (deny and ask rules, plan or default mode, model, limits) always
// applies; whatever runs code or widens (hooks, MCP servers, allow rules,
// other modes, sandbox relaxations, additional directories) applies only
// once the user has trusted the project, remembered with a hash of exactly
// those settings so any change asks again.

// TrustStatus says whether a project's widening settings apply.
type TrustStatus string

// Trust statuses.
const (
	// TrustNothing: the project's files neither run code nor widen anything.
	TrustNothing TrustStatus = "nothing-to-trust"
	// TrustStored: the user trusted exactly these settings before.
	TrustStored TrustStatus = "trusted"
	// TrustFlag: --trust-project applies them for this run.
	TrustFlag TrustStatus = "trusted-by-flag"
	// TrustSetting: trustedDirectories in the user's settings covers the project.
	TrustSetting TrustStatus = "trusted-by-setting"
	// TrustUntrusted: never trusted; the widening settings are ignored.
	TrustUntrusted TrustStatus = "untrusted"
	// TrustChanged: trusted once, but the settings changed since; ignored.
	TrustChanged TrustStatus = "changed"
)

// TrustItem is one project setting that runs code or widens permissions.
type TrustItem struct {
	// File is the settings file, as messages name it (".hew/settings.json").
	File string `json:"file"`
	// Kind is "hook", "mcp server", "allow rule", "mode", "sandbox" or
	// "additional directory".
	Kind string `json:"kind"`
	// Text describes it in one line for the prompt.
	Text string `json:"text"`
	// key is the whole setting, so the hash changes when anything does.
	key string
}

// Trust is the trust state of the project the settings were loaded for.
type Trust struct {
	// Root is the project root the state is about.
	Root string
	// Items are the widening settings found in the project's files, applied
	// or not.
	Items []TrustItem
	// Hash identifies Items; the trust store keeps it.
	Hash   string
	Status TrustStatus
	// Since is when the stored trust was given (TrustStored, TrustChanged).
	Since time.Time
}

// Applied reports whether the widening project settings are in effect.
func (t Trust) Applied() bool {
	switch t.Status {
	case TrustStored, TrustFlag, TrustSetting:
		return true
	}
	return false
}

// Pending reports whether widening settings exist that were not applied:
// the case where an interactive run asks and a headless one warns.
func (t Trust) Pending() bool { return len(t.Items) > 0 && !t.Applied() }

// Summary is the one-line trust state for `hew doctor` and /status.
func (t Trust) Summary() string {
	switch t.Status {
	case TrustNothing, "":
		return "nothing to trust (the project's files run no code and widen no permission)"
	case TrustStored:
		return fmt.Sprintf("trusted since %s: %s apply", t.Since.Local().Format("2006-01-02 15:04"), t.counts())
	case TrustFlag:
		return "trusted for this run (--trust-project): " + t.counts() + " apply"
	case TrustSetting:
		return "trusted by trustedDirectories in the user settings: " + t.counts() + " apply"
	case TrustChanged:
		return fmt.Sprintf("not trusted (changed since trusted on %s): %s ignored", t.Since.Local().Format("2006-01-02"), t.counts())
	}
	return "not trusted: " + t.counts() + " ignored"
}

// Notice is the stderr line of a headless run that ignored the settings.
func (t Trust) Notice() string {
	if !t.Pending() {
		return ""
	}
	why := "this project is not trusted"
	if t.Status == TrustChanged {
		why = "this project's settings changed since you trusted it"
	}
	return fmt.Sprintf("%s: ignoring %s from %s (run hew here interactively to review and trust them, or pass --trust-project)",
		why, t.counts(), strings.Join(t.files(), ", "))
}

// Prompt is the question an interactive run asks before applying them.
func (t Trust) Prompt() string {
	var b strings.Builder
	if t.Status == TrustChanged {
		b.WriteString("This project's settings changed since you trusted it. They would:\n")
	} else {
		b.WriteString("This project's settings would run code or widen what hew may do:\n")
	}
	for _, it := range t.Items {
		fmt.Fprintf(&b, "  %s: %s\n", it.File, it.Text)
	}
	b.WriteString("Only trust a project whose files you have reviewed or wrote yourself.\n")
	b.WriteString("Trust this project and apply them? [y/N] ")
	return b.String()
}

func (t Trust) files() []string {
	var out []string
	for _, it := range t.Items {
		if !slices.Contains(out, it.File) {
			out = append(out, it.File)
		}
	}
	return out
}

// counts renders "1 hook, 2 MCP servers, mode bypassPermissions".
func (t Trust) counts() string {
	n := map[string]int{}
	var order []string
	var mode string
	for _, it := range t.Items {
		if it.Kind == "mode" {
			mode = strings.TrimPrefix(it.Text, "sets ")
		}
		if n[it.Kind] == 0 {
			order = append(order, it.Kind)
		}
		n[it.Kind]++
	}
	parts := make([]string, 0, len(order))
	for _, k := range order {
		name := k
		if k == "mode" {
			parts = append(parts, mode)
			continue
		}
		if k == "mcp server" {
			name = "MCP server"
		}
		if n[k] > 1 {
			name += "s"
			if strings.HasSuffix(k, "y") {
				name = strings.TrimSuffix(name, "ys") + "ies"
			}
		}
		parts = append(parts, fmt.Sprintf("%d %s", n[k], name))
	}
	return strings.Join(parts, ", ")
}

// hashItems identifies a set of widening settings independently of order.
func hashItems(items []TrustItem) string {
	keys := make([]string, 0, len(items))
	for _, it := range items {
		keys = append(keys, it.File+"\x00"+it.Kind+"\x00"+it.key)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0xff})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// narrowing modes a project may set without trust: they only ask more.
var narrowingModes = []string{"default", "plan"}

// splitWidening returns f without its widening settings, and those
// settings as items. f itself is not changed.
func splitWidening(f *File, file string) (*File, []TrustItem) {
	var items []TrustItem
	add := func(kind, text string, key any) {
		k, _ := json.Marshal(key)
		items = append(items, TrustItem{File: file, Kind: kind, Text: text, key: string(k)})
	}
	safe := *f
	if h := f.Hooks; h != nil {
		for _, ev := range h.events() {
			for _, hk := range ev.list {
				m := ""
				switch {
				case hk.Matcher != "" && hk.Matcher != "*":
					m = " (" + hk.Matcher + ")"
				case strings.Contains(ev.name, "ToolUse"):
					m = " (every tool)"
				}
				add("hook", fmt.Sprintf("hook %s%s runs: %s", ev.name, m, oneLine(hk.Command)),
					[]any{ev.name, hk.Matcher, hk.Command, hk.Timeout})
			}
		}
		safe.Hooks = nil
	}
	if len(f.MCPServers) > 0 {
		names := make([]string, 0, len(f.MCPServers))
		for n := range f.MCPServers {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			raw := f.MCPServers[n]
			add("mcp server", fmt.Sprintf("MCP server %q starts: %s", n, serverText(raw)), []any{n, compactJSON(raw)})
		}
		safe.MCPServers = nil
	}
	if p := f.Permissions; p != nil {
		sp := *p
		for _, r := range p.Allow {
			add("allow rule", "allows without asking: "+r, r)
		}
		sp.Allow = nil
		if p.DefaultMode != nil && !slices.Contains(narrowingModes, *p.DefaultMode) {
			add("mode", "sets permission mode "+*p.DefaultMode, *p.DefaultMode)
			sp.DefaultMode = nil
		}
		for _, d := range p.AdditionalDirectories {
			add("additional directory", "gives access to "+d, d)
		}
		sp.AdditionalDirectories = nil
		safe.Permissions = &sp
	}
	if sb := f.Sandbox; sb != nil {
		ss := *sb
		if sb.Enabled != nil && !*sb.Enabled {
			add("sandbox", "turns the shell sandbox off", "enabled=false")
			ss.Enabled = nil
		}
		if mode, ok := networkMode(sb.Network); ok && mode == NetworkAll {
			add("sandbox", "lets shell commands reach any host on the network", "network=true")
			ss.Network = nil
		}
		for _, d := range sb.AllowedDomains {
			add("sandbox", "lets shell commands reach "+d, "allowedDomains="+d)
		}
		ss.AllowedDomains = nil
		safe.Sandbox = &ss
	}
	return &safe, items
}

// serverText shows what an MCP server definition would start or contact.
func serverText(raw json.RawMessage) string {
	var d struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
		URL     string   `json:"url"`
	}
	_ = json.Unmarshal(raw, &d)
	if d.URL != "" {
		return d.URL
	}
	return oneLine(strings.TrimSpace(d.Command + " " + strings.Join(d.Args, " ")))
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v) // map keys sorted: whitespace changes do not re-ask
	return string(b)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// coveredBy reports whether root is one of dirs or inside one. dirs come
// from the user's own settings; "~/" is expanded with home.
func coveredBy(root, userHome string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(d, "~/") && userHome != "" {
			d = filepath.Join(userHome, d[2:])
		}
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		rel, err := filepath.Rel(d, root)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}
