package permission

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/shellparse"
)

// Tool names (SPEC section 4).
const (
	ToolRead      = "read_file"
	ToolWrite     = "write_file"
	ToolEdit      = "edit_file"
	ToolList      = "list_files"
	ToolGrep      = "grep_search"
	ToolShell     = "run_shell"
	ToolWebFetch  = "web_fetch"
	ToolTodo      = "todo_write"
	ToolSearch    = "tool_search"
	ToolSkill     = "skill"
	ToolAgent     = "agent"
	ToolEnterPlan = "enter_plan_mode"
	ToolExitPlan  = "exit_plan_mode"
	ToolWakeup    = "schedule_wakeup"
	ToolMemory    = "memory_write" // queues a memory; only hew's own memory folder changes
	mcpPrefix     = "mcp__"
)

// aliases maps Claude Code tool names onto hew's.
var aliases = map[string]string{
	"Bash": ToolShell, "Read": ToolRead, "Edit": ToolEdit, "Write": ToolWrite,
	"Grep": ToolGrep, "Glob": ToolList, "WebFetch": ToolWebFetch,
}

// kind groups tools that the modes table treats alike.
type kind int

const (
	kindOther kind = iota
	kindRead
	kindWrite
	kindShell
	kindWeb
	kindMCP
	kindInternal
)

func toolKind(tool string) kind {
	switch tool {
	case ToolRead, ToolList, ToolGrep:
		return kindRead
	case ToolWrite, ToolEdit:
		return kindWrite
	case ToolShell:
		return kindShell
	case ToolWebFetch:
		return kindWeb
	case ToolTodo, ToolSearch, ToolSkill, ToolAgent, ToolEnterPlan, ToolExitPlan, ToolWakeup, ToolMemory:
		return kindInternal
	}
	if strings.HasPrefix(tool, mcpPrefix) {
		return kindMCP
	}
	return kindOther
}

// Rule is one parsed permission rule.
type Rule struct {
	Kind   string // allow | ask | deny
	Text   string // as written
	Source string // file or flag it came from
	Tool   string // canonical tool name (or mcp__server[__tool])
	// Pattern is the text inside the parentheses; empty matches every call.
	Pattern string

	glob  string           // file tools: doublestar pattern
	abs   bool             // file tools: glob is absolute
	shell []*regexp.Regexp // run_shell: the pattern as written and re-quoted
}

// String renders the rule with where it came from.
func (r *Rule) String() string { return r.Text + " (" + r.Source + ")" }

// ParseRule parses TOOL or TOOL(PATTERN). home expands "~/" in file patterns.
func ParseRule(text, home string) (*Rule, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, fmt.Errorf("empty rule")
	}
	if !utf8.ValidString(t) {
		return nil, fmt.Errorf("the rule is not valid UTF-8")
	}
	r := &Rule{Text: t}
	name := t
	if i := strings.IndexByte(t, '('); i >= 0 {
		if !strings.HasSuffix(t, ")") {
			return nil, fmt.Errorf("missing closing parenthesis")
		}
		name, r.Pattern = t[:i], strings.TrimSpace(t[i+1:len(t)-1])
		if r.Pattern == "" {
			return nil, fmt.Errorf("empty pattern in parentheses (write %s to match every call)", name)
		}
	} else if strings.ContainsAny(t, ")") {
		return nil, fmt.Errorf("unbalanced parenthesis")
	}
	name = strings.TrimSpace(name)
	if a, ok := aliases[name]; ok {
		name = a
	}
	r.Tool = name
	switch k := toolKind(name); {
	case k == kindMCP:
		if len(name) <= len(mcpPrefix) || strings.HasPrefix(name, mcpPrefix+"_") {
			return nil, fmt.Errorf("MCP rule %q names no server", name)
		}
		if r.Pattern != "" {
			return nil, fmt.Errorf("MCP rules take no pattern (use mcp__SERVER or mcp__SERVER__TOOL)")
		}
	case k == kindOther:
		return nil, fmt.Errorf("unknown tool %q", name)
	case r.Pattern == "":
	case k == kindShell:
		r.shell = shellPatterns(r.Pattern)
	case k == kindRead || k == kindWrite:
		g, abs, err := filePattern(r.Pattern, home)
		if err != nil {
			return nil, err
		}
		r.glob, r.abs = g, abs
	case k == kindWeb:
		host, ok := strings.CutPrefix(r.Pattern, "domain:")
		host = strings.ToLower(strings.TrimSpace(host))
		if !ok || host == "" || strings.ContainsAny(host, "/ ") {
			return nil, fmt.Errorf("web_fetch patterns are domain:HOST, got %q", r.Pattern)
		}
		r.Pattern = "domain:" + host
	case name == ToolSkill:
	default:
		return nil, fmt.Errorf("%s takes no pattern", name)
	}
	return r, nil
}

// shellPatterns compiles a run_shell pattern as written and, when its
// literal part is one simple command, as the analyser renders commands (so
// `git commit -m "wip"` matches however the command was quoted).
func shellPatterns(p string) []*regexp.Regexp {
	out := []*regexp.Regexp{shellPattern(p)}
	lit, suffix := p, ""
	for _, s := range []string{":*", "*"} {
		if strings.HasSuffix(p, s) {
			lit, suffix = strings.TrimSuffix(p, s), s
			break
		}
	}
	if strings.Contains(lit, "*") {
		return out
	}
	a := shellparse.Analyze(lit, shellparse.Options{})
	if a.Err != nil || len(a.Commands) != 1 || a.Commands[0].Dynamic {
		return out
	}
	trail := ""
	if suffix == "*" && strings.HasSuffix(lit, " ") {
		trail = " "
	}
	if norm := a.Commands[0].Text + trail + suffix; norm != p {
		out = append(out, shellPattern(norm))
	}
	return out
}

// shellPattern compiles a run_shell pattern: exact, "prefix:*" (word
// boundary) or "*" wildcards anywhere.
func shellPattern(p string) *regexp.Regexp {
	p = strings.Join(strings.Fields(p), " ")
	if prefix, ok := strings.CutSuffix(p, ":*"); ok {
		return regexp.MustCompile("^" + regexp.QuoteMeta(prefix) + "(?: .*)?$")
	}
	parts := strings.Split(p, "*")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("(?s)^" + strings.Join(parts, ".*") + "$")
}

// filePattern turns a gitignore-style pattern into a doublestar glob.
func filePattern(p, home string) (string, bool, error) {
	abs := false
	switch {
	case strings.HasPrefix(p, "~/"):
		if home == "" {
			return "", false, fmt.Errorf("pattern %q uses ~ but the home directory is unknown", p)
		}
		p = filepath.ToSlash(home) + p[1:]
		abs = true
	case strings.HasPrefix(p, "//"):
		p = p[1:]
		abs = true
	case strings.HasPrefix(p, "/"):
		abs = true
	default:
		p = strings.TrimPrefix(p, "./")
		if !strings.Contains(strings.TrimSuffix(p, "/"), "/") && !strings.HasPrefix(p, "**") {
			p = "**/" + p
		}
	}
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	if !doublestar.ValidatePattern(p) {
		return "", false, fmt.Errorf("invalid glob pattern %q", p)
	}
	return p, abs, nil
}

// appliesTo reports whether a rule's tool covers the requested tool: file
// rules cover their family (Read covers list and grep; Edit and Write cover
// both writers), mcp__server covers all of that server's tools.
func (r *Rule) appliesTo(tool string) bool {
	if r.Tool == tool {
		return true
	}
	switch r.Tool {
	case ToolRead:
		return tool == ToolList || tool == ToolGrep
	case ToolEdit, ToolWrite:
		return tool == ToolEdit || tool == ToolWrite
	}
	if toolKind(r.Tool) == kindMCP && strings.HasPrefix(tool, r.Tool) {
		rest := tool[len(r.Tool):]
		return strings.HasPrefix(rest, "__") || strings.HasSuffix(r.Tool, "__*")
	}
	if strings.HasSuffix(r.Tool, "__*") && strings.HasPrefix(tool, strings.TrimSuffix(r.Tool, "*")) {
		return true
	}
	return false
}

// matchShell reports whether the pattern matches one command text.
func (r *Rule) matchShell(text string) bool {
	if r.shell == nil {
		return true
	}
	text = strings.Join(strings.Fields(text), " ")
	for _, re := range r.shell {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// matchPath reports whether the rule's glob matches abs or one of its
// parent directories (gitignore: a matched directory covers its contents).
func (r *Rule) matchPath(abs, root string) bool {
	if r.glob == "" {
		return true
	}
	for cand := abs; ; {
		var subject string
		if r.abs {
			subject = filepath.ToSlash(cand)
		} else if rel, err := filepath.Rel(root, cand); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel) {
			subject = filepath.ToSlash(rel)
		}
		if subject != "" {
			if ok, _ := doublestar.Match(r.glob, subject); ok {
				return true
			}
		}
		parent := filepath.Dir(cand)
		if parent == cand {
			return false
		}
		cand = parent
	}
}

// matchHost reports whether a domain:HOST rule covers host (the domain
// itself and its subdomains).
func (r *Rule) matchHost(host string) bool {
	if r.Pattern == "" {
		return true
	}
	want := strings.TrimPrefix(r.Pattern, "domain:")
	want = strings.TrimPrefix(want, "*.")
	host = strings.ToLower(host)
	return host == want || strings.HasSuffix(host, "."+want)
}

// CheckWithheld reports the first invalid rule among the allow rules s
// withholds from an untrusted project: they are not applied, but a mistake
// in them is still a mistake, and is said before anything is asked.
func CheckWithheld(s *config.Settings, home string) error {
	for _, en := range s.WithheldRules() {
		if _, err := ParseRule(en.Rule, home); err != nil {
			return fmt.Errorf("%s: invalid permission rule %q in the allow list: %w", en.Where(), en.Rule, err)
		}
	}
	return nil
}
