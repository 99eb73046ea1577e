package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/shellparse"
)

// Options configure an Engine.
type Options struct {
	// Root is the project root; it is made absolute and symlink-resolved.
	Root string
	// HomeDir is the user's home, for "~/" in rules and shell analysis.
	HomeDir string
	// HewHome is $HEW_HOME (its settings.json is protected, plans/ is
	// writable in plan mode).
	HewHome string
	// Settings are the merged settings; nil means none.
	Settings *config.Settings
	// AllowedTools and DisallowedTools are rules from the command line.
	AllowedTools, DisallowedTools []string
	// AdditionalDirs are extra directories (beyond settings) where file
	// tools may work.
	AdditionalDirs []string
	// ReadableDirs are hew's own directories the model may read but not
	// write, such as the project's tool-results/ where cut results are saved.
	ReadableDirs []string
	// SandboxActive says run_shell runs confined (writes to the project and
	// temp, network off or limited to allowed domains). Only then are the
	// project's own builds and tests known-safe; false makes them ask.
	SandboxActive bool
	// LocalSettings is the file "yes, and don't ask again" writes its rule
	// to (.hew/settings.local.json); empty disables saving.
	LocalSettings string
	// KeepTrust wraps that write so a trusted project stays trusted after
	// the user's own rule is added (config.KeepTrust); nil writes directly.
	KeepTrust func(write func() error) error
}

// Engine decides tool calls. It is safe for concurrent use.
type Engine struct {
	root, home, hewHome string
	defaultMode         Mode
	rules               []*Rule // deny, ask, allow in source order
	dirs                []string
	readable            []string
	sandboxed           bool
	localSettings       string
	keepTrust           func(write func() error) error

	mu     sync.Mutex
	grants map[string]bool
	rmu    sync.RWMutex // guards rules against Remember
}

// ruleList is a snapshot of the rules.
func (e *Engine) ruleList() []*Rule {
	e.rmu.RLock()
	defer e.rmu.RUnlock()
	return e.rules
}

// New builds an engine. Every invalid rule or directory is reported in the
// error, naming the rule, where it came from and why.
func New(o Options) (*Engine, error) {
	s := o.Settings
	if s == nil {
		s = config.Default()
	}
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, fmt.Errorf("project root %q: %w", o.Root, err)
	}
	e := &Engine{
		root:          shellparse.ResolvePath(root),
		home:          o.HomeDir,
		hewHome:       o.HewHome,
		defaultMode:   Mode(s.Permissions.DefaultMode),
		grants:        map[string]bool{},
		sandboxed:     o.SandboxActive,
		localSettings: o.LocalSettings,
		keepTrust:     o.KeepTrust,
	}
	if e.defaultMode == "" {
		e.defaultMode = ModeDefault
	}
	if e.hewHome != "" {
		e.hewHome = shellparse.ResolvePath(e.hewHome)
	}
	var errs []error
	entries := s.Rules()
	for _, r := range o.DisallowedTools {
		entries = append(entries, config.RuleEntry{Kind: "deny", Rule: r, Source: "--disallowed-tools"})
	}
	for _, r := range o.AllowedTools {
		entries = append(entries, config.RuleEntry{Kind: "allow", Rule: r, Source: "--allowed-tools"})
	}
	for _, en := range entries {
		r, err := ParseRule(en.Rule, e.home)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: invalid permission rule %q in the %s list: %w", en.Where(), en.Rule, en.Kind, err))
			continue
		}
		r.Kind, r.Source = en.Kind, en.Source
		e.rules = append(e.rules, r)
	}
	for _, d := range append(append([]string{}, s.Permissions.AdditionalDirectories...), o.AdditionalDirs...) {
		abs := d
		switch {
		case strings.HasPrefix(d, "~/") || d == "~":
			abs = filepath.Join(e.home, strings.TrimPrefix(d, "~"))
		case !filepath.IsAbs(d):
			abs = filepath.Join(e.root, d)
		}
		e.dirs = append(e.dirs, shellparse.ResolvePath(abs))
	}
	for _, d := range o.ReadableDirs {
		if abs, err := filepath.Abs(d); err == nil {
			e.readable = append(e.readable, shellparse.ResolvePath(abs))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return e, nil
}

// DefaultMode is the mode settings ask for (permissions.defaultMode).
func (e *Engine) DefaultMode() Mode { return e.defaultMode }

// SandboxActive reports whether the engine treats run_shell as confined.
func (e *Engine) SandboxActive() bool { return e.sandboxed }

// Root is the resolved project root.
func (e *Engine) Root() string { return e.root }

// AdditionalDirs are the resolved extra directories.
func (e *Engine) AdditionalDirs() []string { return append([]string(nil), e.dirs...) }

// subject is what a call touches.
type subject struct {
	tool    string
	kind    kind
	path    string // resolved absolute path (file tools)
	command string // run_shell
	shell   *shellparse.Analysis
	host    string // web_fetch
	name    string // skill
	bad     string // input could not be read
	badPath string // a path that must not be trusted (control characters, overlong names)
}

func (e *Engine) subject(tool string, input json.RawMessage) subject {
	if canon, ok := aliases[tool]; ok {
		tool = canon // `hew permissions check Bash …` means run_shell
	}
	s := subject{tool: tool, kind: toolKind(tool)}
	var in struct {
		Command  string `json:"command"`
		FilePath string `json:"file_path"`
		Path     string `json:"path"`
		URL      string `json:"url"`
		Name     string `json:"name"`
		Pattern  string `json:"pattern"`
	}
	if len(input) > 0 {
		if err := json.Unmarshal(input, &in); err != nil {
			s.bad = err.Error()
		}
	}
	switch s.kind {
	case kindRead, kindWrite:
		p := in.FilePath
		if p == "" {
			p = in.Path
		}
		for _, raw := range []string{p, in.Pattern} {
			if why := shellparse.BadPath(raw); why != "" && s.bad == "" {
				s.badPath = fmt.Sprintf("the path %q %s; such paths are refused", raw, why)
			}
		}
		if tool == ToolList && in.Pattern != "" {
			// A glob may itself climb out (../*, /etc/*): judge the
			// directory it starts from.
			p = filepath.Join(orDot(p), globDir(in.Pattern))
			if filepath.IsAbs(globDir(in.Pattern)) || strings.HasPrefix(in.Pattern, "~") {
				p = globDir(in.Pattern)
			}
		}
		s.path = e.resolve(p)
	case kindShell:
		s.command = strings.TrimSpace(in.Command)
		if strings.ContainsRune(s.command, 0) {
			s.badPath = "the command contains a NUL byte, where the shell would cut it short; such commands are refused"
		}
		s.shell = shellparse.Analyze(s.command, shellparse.Options{Root: e.root, Home: e.home, HewHome: e.hewHome})
	case kindWeb:
		if u, err := url.Parse(strings.TrimSpace(in.URL)); err == nil {
			s.host = strings.ToLower(u.Hostname())
		}
	}
	s.name = in.Name
	return s
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// globDir is the directory part of a glob before its first pattern
// character.
func globDir(pattern string) string {
	i := strings.IndexAny(pattern, "*?[{")
	if i < 0 {
		return filepath.Dir(pattern)
	}
	j := strings.LastIndex(pattern[:i], "/")
	switch {
	case j < 0:
		return "."
	case j == 0:
		return "/"
	}
	return pattern[:j]
}

// resolve makes a tool path absolute (relative to the root, ~ expanded) with
// .. and symlinks resolved.
func (e *Engine) resolve(p string) string {
	switch {
	case p == "":
		return e.root
	case p == "~" || strings.HasPrefix(p, "~/"):
		p = filepath.Join(e.home, p[1:])
	case !filepath.IsAbs(p):
		p = filepath.Join(e.root, p)
	}
	return shellparse.ResolvePath(p)
}

// readableDir reports whether abs lies in one of hew's read-only directories.
func (e *Engine) readableDir(abs string) bool {
	for _, d := range e.readable {
		if within(abs, d) {
			return true
		}
	}
	return false
}

// inside reports whether abs lies in the project or an additional directory.
func (e *Engine) inside(abs string) bool {
	if within(abs, e.root) {
		return true
	}
	for _, d := range e.dirs {
		if within(abs, d) {
			return true
		}
	}
	return false
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// matches reports whether rule r matches the subject. For run_shell, deny
// and ask rules match the whole command or any simple command in it (seen
// through wrappers).
func (e *Engine) matches(r *Rule, s subject) bool {
	if !r.appliesTo(s.tool) {
		return false
	}
	switch s.kind {
	case kindShell:
		if r.shell == nil {
			return true
		}
		if r.matchShell(s.command) {
			return true
		}
		for _, c := range s.shell.Commands {
			for _, f := range c.Forms() {
				if r.matchShell(f) {
					return true
				}
			}
		}
		return false
	case kindRead, kindWrite:
		return r.matchPath(s.path, e.root)
	case kindWeb:
		return r.matchHost(s.host)
	case kindInternal:
		return r.Pattern == "" || r.Pattern == s.name
	}
	return true
}

// firstRule returns the first rule of a kind matching s.
func (e *Engine) firstRule(kind string, s subject) *Rule {
	for _, r := range e.ruleList() {
		if r.Kind == kind && e.matches(r, s) {
			return r
		}
	}
	return nil
}

// allowed reports whether allow rules cover the call. A shell command is
// covered when every simple command in it is read-only or matched (with
// harmless wrappers stripped) by an allow rule and not risky itself.
func (e *Engine) allowed(s subject, extra []*Rule) *Rule {
	if s.kind != kindShell {
		if r := e.firstRule("allow", s); r != nil {
			return r
		}
		for _, r := range extra {
			if e.matches(r, s) {
				return r
			}
		}
		return nil
	}
	var allows []*Rule
	for _, r := range append(append([]*Rule{}, e.ruleList()...), extra...) {
		if r.Kind == "allow" && r.appliesTo(s.tool) {
			if r.shell == nil {
				return r
			}
			allows = append(allows, r)
		}
	}
	if len(allows) == 0 || s.shell.Err != nil || len(s.shell.Commands) == 0 {
		return nil
	}
	var used *Rule
	for _, c := range s.shell.Commands {
		var hit *Rule
		if !c.Risky {
			for _, r := range allows {
				if r.matchShell(c.Core) {
					hit = r
					break
				}
			}
		}
		if hit == nil && !(c.Level <= shellparse.LevelLocal || c.Level == shellparse.LevelBuild && e.sandboxed) {
			return nil
		}
		if used == nil {
			used = hit
		}
	}
	if used == nil {
		return nil // known-safe everywhere: the mode decides
	}
	return used
}

// grantKey names the operation a "yes for this session" covers.
func grantKey(s subject) string {
	switch s.kind {
	case kindShell:
		return "shell\x00" + strings.Join(strings.Fields(s.command), " ")
	case kindWrite:
		return "write\x00" + s.path
	case kindRead:
		return "read\x00" + s.path
	case kindWeb:
		return "web\x00" + s.host
	}
	return "tool\x00" + s.tool
}

// GrantScope says, in words for the approval question, what a "yes for this
// session" to this call would cover (grantKey's scope).
func (e *Engine) GrantScope(tool string, input json.RawMessage) string {
	s := e.subject(tool, input)
	switch s.kind {
	case kindShell:
		return "this exact command"
	case kindWrite:
		return "changes to " + e.display(s.path)
	case kindRead:
		return "reading " + e.display(s.path)
	case kindWeb:
		if s.host != "" {
			return "every fetch from " + s.host
		}
	}
	return "every " + s.tool + " call"
}

// display is a path as the user thinks of it: relative inside the project.
func (e *Engine) display(abs string) string {
	if abs == "" {
		return "this file"
	}
	if rel, err := filepath.Rel(e.root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return abs
}

// Grant remembers a "yes for this session": the same command, the same file
// for edits, the same domain for web_fetch, the same tool otherwise.
func (e *Engine) Grant(tool string, input json.RawMessage) {
	s := e.subject(tool, input)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.grants[grantKey(s)] = true
}

func (e *Engine) granted(s subject) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.grants[grantKey(s)]
}

// AllowsOutside reports whether an additional directory or an explicit
// allow rule covers absPath for tool (tools.Env.AllowOutside).
func (e *Engine) AllowsOutside(tool, absPath string) bool {
	abs := shellparse.ResolvePath(absPath)
	if e.inside(abs) {
		return true
	}
	s := subject{tool: tool, kind: toolKind(tool), path: abs}
	return e.firstRule("allow", s) != nil
}

// DeniesRead reports whether a deny rule forbids tool from reading absPath.
// Search tools use it to drop denied files from their results, so a
// project-wide search cannot read around a Read(secrets/**) rule.
func (e *Engine) DeniesRead(tool, absPath string) bool {
	s := subject{tool: tool, kind: toolKind(tool), path: shellparse.ResolvePath(absPath)}
	if s.kind != kindRead {
		return false
	}
	return e.firstRule("deny", s) != nil
}
