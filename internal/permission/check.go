package permission

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hew-dev/hew/internal/shellparse"
)

// ValidMode reports whether m is one of the six modes.
func ValidMode(m Mode) bool {
	switch m {
	case ModeDefault, ModePlan, ModeAcceptEdits, ModeBypass, ModeDontAsk, ModeAuto:
		return true
	}
	return false
}

// Check decides one call in the order SPEC section 4 fixes: deny rules, ask
// rules, plan mode's denials, the floors (protected paths, deletions
// outside the project: ask), allow rules, the mode, the built-in analysis
// (known-safe: allow; anything else: ask). Plan mode's deny beats the floors
// and allow rules; the floors beat allow rules (only bypassPermissions
// lifts them), so the model cannot grant itself permissions. Session grants
// come after plan's bans, so a "yes" given before entering plan mode does
// not carry into it. An ask carries, in Suggest, a scoped allow rule that
// would cover the call.
func (e *Engine) Check(req Request) Verdict {
	v, s := e.check(req, nil)
	if v.Decision == Ask && s.kind != kindOther {
		v.Suggest = e.suggest(req, s)
	}
	return v
}

func (e *Engine) check(req Request, extra []*Rule) (Verdict, subject) {
	mode := req.Mode
	if mode == "" {
		mode = e.defaultMode
	}
	if !ValidMode(mode) {
		return Verdict{Decision: Deny, Reason: fmt.Sprintf("unknown permission mode %q", mode), Source: "mode"}, subject{}
	}
	s := e.subject(req.Tool, req.Input)
	if s.bad != "" {
		return Verdict{Decision: Deny, Reason: "cannot read the tool input: " + s.bad, Source: "input"}, s
	}
	if s.badPath != "" {
		return Verdict{Decision: Deny, Reason: s.badPath, Source: "input"}, s
	}
	if r := e.firstRule("deny", s); r != nil {
		return Verdict{Decision: Deny, Reason: "denied by rule " + r.Text + " in " + r.Source, Source: "rule:deny " + r.String()}, s
	}
	if r := e.firstRule("ask", s); r != nil {
		return wouldAsk(mode, Verdict{Decision: Ask, Reason: "rule " + r.Text + " in " + r.Source + " asks first", Source: "rule:ask " + r.String()}), s
	}
	if mode == ModePlan {
		if v, ok := e.planFloor(s); ok {
			return v, s
		}
	}
	if mode != ModeBypass {
		if v, ok := e.hardAsk(s); ok {
			return wouldAsk(mode, v), s
		}
	}
	if r := e.allowed(s, extra); r != nil {
		return Verdict{Decision: Allow, Reason: "allowed by rule " + r.Text + " in " + r.Source, Source: "rule:allow " + r.String()}, s
	}
	if e.granted(s) {
		return Verdict{Decision: Allow, Reason: "approved for this session earlier", Source: "session-grant"}, s
	}
	if s.kind == kindRead && e.readableDir(s.path) {
		return Verdict{Decision: Allow, Reason: "reading hew's own saved tool results and memory is always allowed", Source: "default"}, s
	}
	if (s.kind == kindRead || s.kind == kindWrite) && !e.inside(s.path) {
		v := Verdict{Decision: Ask, Reason: s.path + " is outside the project root (add it to additionalDirectories or allow it explicitly)", Source: "outside-project"}
		return e.byMode(mode, v), s
	}
	return e.modeTable(mode, s), s
}

// shellSource names what the analysis recognised: "read-only",
// "local-work", "project-build", "unknown", or "danger:CLASS".
func shellSource(a *shellparse.Analysis) string {
	if a.Dangerous() {
		return "danger:" + a.Dangers[0].Class
	}
	return a.Level.String()
}

// planFloor applies plan mode's bans: no file changes (except the plan
// file under $HEW_HOME/plans) and only read-only shell commands.
func (e *Engine) planFloor(s subject) (Verdict, bool) {
	switch s.kind {
	case kindWrite:
		if e.hewHome != "" && within(s.path, filepath.Join(e.hewHome, "plans")) {
			return Verdict{Decision: Allow, Reason: "plan mode may write the plan file", Source: "mode:plan"}, true
		}
		return Verdict{Decision: Deny, Reason: "plan mode: no file changes until the plan is approved", Source: "mode:plan"}, true
	case kindShell:
		if !s.shell.ReadOnly {
			why := "the command is " + s.shell.Level.String()
			if s.shell.Level == shellparse.LevelUnknown {
				why = s.shell.Why(e.sandboxed)
			}
			return Verdict{Decision: Deny, Reason: "plan mode allows only read-only commands: " + why, Source: shellSource(s.shell)}, true
		}
	}
	return Verdict{}, false
}

// hardAsk finds what must always ask: writes onto protected paths through
// file tools or the shell, and deletions outside the project.
func (e *Engine) hardAsk(s subject) (Verdict, bool) {
	switch s.kind {
	case kindWrite:
		if ok, why := shellparse.ProtectedPath(s.path, e.root, e.home, e.hewHome); ok {
			return Verdict{Decision: Ask, Reason: fmt.Sprintf("%s is a protected path (%s); changing it always asks", s.path, why), Source: "protected-path"}, true
		}
	case kindShell:
		if len(s.shell.Protected) > 0 {
			return Verdict{Decision: Ask, Reason: "the command changes protected paths: " + strings.Join(uniq(s.shell.Protected), ", ") + "; this always asks", Source: "protected-path"}, true
		}
		if len(s.shell.OutsideDeletes) > 0 {
			return Verdict{Decision: Ask, Reason: "the command deletes outside the project: " + strings.Join(uniq(s.shell.OutsideDeletes), ", ") + "; this always asks", Source: "danger:" + shellparse.ClassOutsideDelete}, true
		}
	}
	return Verdict{}, false
}

// modeTable applies the SPEC modes table and the danger analysis.
func (e *Engine) modeTable(mode Mode, s subject) Verdict {
	switch s.kind {
	case kindRead:
		return Verdict{Decision: Allow, Reason: "reading inside the project is always allowed", Source: "default"}
	case kindInternal:
		if s.tool == ToolExitPlan && mode == ModePlan {
			// The tool itself asks the user what to do with the plan (four
			// choices, none of them answered by a mode); headless it only saves.
			return Verdict{Decision: Allow, Reason: "exit_plan_mode saves the plan and asks the user itself", Source: "mode:plan"}
		}
		return Verdict{Decision: Allow, Reason: s.tool + " changes nothing outside the session", Source: "default"}
	case kindWrite:
		switch mode {
		case ModeAcceptEdits, ModeBypass:
			return Verdict{Decision: Allow, Reason: string(mode) + " mode allows file changes in the project", Source: "mode:" + string(mode)}
		}
		return e.byMode(mode, Verdict{Decision: Ask, Reason: "changing " + s.path + " needs approval", Source: "mode:" + string(mode)})
	case kindShell:
		if mode == ModeBypass {
			return Verdict{Decision: Allow, Reason: "bypassPermissions mode allows every command", Source: "mode:bypassPermissions"}
		}
		src := shellSource(s.shell)
		if s.shell.KnownSafe(e.sandboxed) {
			why := "known-safe: " + s.shell.Level.String()
			if s.shell.Level == shellparse.LevelBuild {
				why += " inside the active sandbox"
			}
			return Verdict{Decision: Allow, Reason: why, Source: src}
		}
		return e.byMode(mode, Verdict{Decision: Ask, Reason: s.shell.Why(e.sandboxed), Source: src})
	case kindWeb:
		what := "fetching " + s.host
		if s.host == "" {
			what = "fetching a URL"
		}
		return e.byMode(mode, Verdict{Decision: Ask, Reason: what + " needs approval", Source: "mode:" + string(mode)})
	}
	return e.byMode(mode, Verdict{Decision: Ask, Reason: "calling " + s.tool + " needs approval", Source: "mode:" + string(mode)})
}

// byMode turns an "ask" into what the mode makes of it.
func (e *Engine) byMode(mode Mode, v Verdict) Verdict {
	switch mode {
	case ModeBypass:
		return Verdict{Decision: Allow, Reason: "bypassPermissions mode allows it (" + v.Reason + ")", Source: "mode:bypassPermissions"}
	case ModeAuto:
		src := v.Source
		if src == "" || strings.HasPrefix(src, "mode:") {
			src = "mode:auto"
		}
		return Verdict{Decision: Ask, Reason: "auto mode: the classifier decides (" + v.Reason + ")", Source: src, Classify: true}
	}
	return wouldAsk(mode, v)
}

// wouldAsk denies in dontAsk mode and asks otherwise.
func wouldAsk(mode Mode, v Verdict) Verdict {
	if mode == ModeDontAsk {
		return Verdict{Decision: Deny, Reason: "dontAsk mode denies what would ask: " + v.Reason, Source: v.Source}
	}
	return v
}

func uniq(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
