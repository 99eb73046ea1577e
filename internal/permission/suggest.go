package permission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/shellparse"
)

// suggest proposes the narrowest allow rule that would let this call run
// without asking, and keeps it only if the engine, given that rule, would
// indeed allow the call (floors, risky commands and compounds that need
// more than one rule get no suggestion).
func (e *Engine) suggest(req Request, s subject) string {
	var text string
	switch s.kind {
	case kindShell:
		text = e.shellSuggestion(s.shell)
	case kindWeb:
		if s.host != "" {
			text = ToolWebFetch + "(domain:" + s.host + ")"
		}
	case kindMCP:
		text = s.tool
	case kindWrite:
		if e.inside(s.path) && !strings.ContainsAny(s.path, "*?[]{}()") {
			text = s.tool + "(" + filepath.ToSlash(s.path) + ")"
		}
	case kindRead:
		if !strings.ContainsAny(s.path, "*?[]{}()") {
			text = ToolRead + "(" + filepath.ToSlash(s.path) + "/**)"
			if fi, err := os.Stat(s.path); err == nil && !fi.IsDir() {
				text = ToolRead + "(" + filepath.ToSlash(s.path) + ")"
			}
		}
	}
	if text == "" {
		return ""
	}
	r, err := ParseRule(text, e.home)
	if err != nil {
		return ""
	}
	r.Kind, r.Source = "allow", "suggestion"
	if v, _ := e.check(req, []*Rule{r}); v.Decision != Allow {
		return ""
	}
	return text
}

// shellSuggestion covers the one simple command that is not known-safe:
// `run_shell(PROGRAM SUBCOMMAND:*)` for an unknown program, the exact
// command for a dangerous one.
func (e *Engine) shellSuggestion(a *shellparse.Analysis) string {
	if a.Err != nil {
		return ""
	}
	var need []shellparse.Command
	for _, c := range a.Commands {
		if c.Level <= shellparse.LevelLocal || c.Level == shellparse.LevelBuild && e.sandboxed {
			continue
		}
		if c.Risky || len(c.CoreArgv) == 0 {
			return ""
		}
		need = append(need, c)
	}
	if len(need) == 0 {
		return ""
	}
	// A shell string's outer command (bash -c '…') is covered by the rule
	// for what it runs only if it is that command itself: ask for one rule.
	if len(need) > 1 {
		return ""
	}
	c := need[0]
	for _, d := range a.Dangers {
		if d.Command == c.Text || d.Command == c.Core {
			return ToolShell + "(" + c.Core + ")"
		}
	}
	if len(a.Dangers) > 0 {
		return ""
	}
	prefix := c.CoreArgv[0]
	if len(c.CoreArgv) > 1 && plainWord(c.CoreArgv[1]) {
		prefix += " " + c.CoreArgv[1]
	}
	if strings.ContainsAny(prefix, "*()") {
		return ""
	}
	return ToolShell + "(" + prefix + ":*)"
}

// plainWord is a subcommand-like word: no option, path, glob or quoting.
func plainWord(w string) bool {
	if w == "" || strings.HasPrefix(w, "-") {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':' || r == '.') {
			return false
		}
	}
	return !strings.Contains(w, "..")
}

// Remember applies an allow rule at once and saves it to the project's
// local settings (.hew/settings.local.json), merged into what the file
// already holds. It returns the file written.
func (e *Engine) Remember(rule string) (string, error) {
	r, err := ParseRule(rule, e.home)
	if err != nil {
		return "", fmt.Errorf("rule %q: %w", rule, err)
	}
	if e.localSettings == "" {
		return "", errors.New("no project settings file to save the rule to")
	}
	write := func() error { return AddRuleToFile(e.localSettings, "allow", r.Text) }
	if e.keepTrust != nil {
		err = e.keepTrust(write)
	} else {
		err = write()
	}
	if err != nil {
		return "", err
	}
	r.Kind, r.Source = "allow", filepath.Join(".hew", "settings.local.json")
	e.rmu.Lock()
	e.rules = append(e.rules, r)
	e.rmu.Unlock()
	return e.localSettings, nil
}

// AddRuleToFile adds rule to permissions.KIND of the settings file at path,
// keeping every other key, and writes the file atomically (a temp file
// renamed over it). A file that is not a JSON object is left alone and
// reported: nothing is lost.
func AddRuleToFile(path, kind, rule string) error {
	return config.AppendToList(path, "permissions", kind, rule)
}
