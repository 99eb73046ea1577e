package shellparse

import (
	"fmt"
	"strings"
)

// Level is how far a command reaches. The known-safe levels are ordered;
// LevelUnknown is everything the allowlist does not vouch for.
type Level int

// String is the level's class name.
func (l Level) String() string {
	switch l {
	case LevelReadOnly:
		return ClassReadOnly
	case LevelLocal:
		return ClassLocal
	case LevelBuild:
		return ClassBuild
	}
	return ClassUnknown
}

// Danger is one reason a command needs a human.
type Danger struct {
	Class   string `json:"class"`
	Command string `json:"command"`
	Detail  string `json:"detail"`
}

// Command is one simple command as it will run.
type Command struct {
	// Argv holds the words after quote removal; a word that cannot be known
	// statically keeps its source text.
	Argv []string
	// Text is Argv joined and re-quoted, without assignments and
	// redirections: what permission rules match against.
	Text string
	// Unwrapped are the texts of the commands a wrapper runs (sudo X, xargs X,
	// find -exec X), so deny and ask rules see through wrappers.
	Unwrapped []string
	// Dynamic is set when a word depends on runtime values.
	Dynamic bool
	// ReadOnly is set when the command has no side effects.
	ReadOnly bool
	// Level is the command's own level (what it wraps or sources included).
	Level Level
	// Core is Text with harmless wrappers (timeout, nice, env, xargs…)
	// stripped: what an allow rule must match, so `timeout:*` never allows
	// `timeout 1 rm -rf /`. Privileged wrappers (sudo) are kept.
	Core string
	// CoreArgv is Core as words.
	CoreArgv []string
	// Risky is set when the command's redirections write sensitive files,
	// its name is computed at run time or PATH-like variables are changed;
	// an allow rule never covers a risky command.
	Risky bool
	// Nested is set for commands inside substitutions or shell strings.
	Nested bool
}

// Analysis is the verdict on one command line.
type Analysis struct {
	Commands []Command
	Dangers  []Danger
	// ReadOnly is true when every command is read-only and nothing is written.
	ReadOnly bool
	// Level is the highest level of any simple command; LevelUnknown when
	// anything is dangerous or unparsable.
	Level Level
	// Unknown says, per command, why it is not known-safe ("`rclone` is not
	// a known-safe command").
	Unknown []string
	// Builds names the build/test commands (known-safe only in the sandbox).
	Builds []string
	// Err is the parse error, if any (the command is then dangerous).
	Err error
	// OutsideDeletes lists resolved deletion targets outside the project
	// (or unresolvable ones); these must always ask.
	OutsideDeletes []string
	// Writes lists resolved files the command writes through redirections
	// or file-writing commands.
	Writes []string
	// Protected lists writes onto protected paths (hew settings, .git/config,
	// .git/hooks, shell start-up files); these must always ask.
	Protected []string
}

// Dangerous reports whether anything needs a human.
func (a *Analysis) Dangerous() bool { return len(a.Dangers) > 0 }

// KnownSafe reports whether the command may run unasked: every simple
// command is read-only or local project work, or a project build/test run
// while the sandbox is active.
func (a *Analysis) KnownSafe(sandboxed bool) bool {
	if a.Dangerous() || a.Err != nil {
		return false
	}
	return a.Level <= LevelLocal || a.Level == LevelBuild && sandboxed
}

// Class names what the analysis recognised: the first danger class, or the
// level's class name.
func (a *Analysis) Class() string {
	if len(a.Dangers) > 0 {
		return a.Dangers[0].Class
	}
	return a.Level.String()
}

// Why explains in one line why the command is not known-safe.
func (a *Analysis) Why(sandboxed bool) string {
	if a.Dangerous() {
		return "dangerous command: " + a.Summary()
	}
	if a.Level == LevelUnknown {
		return joinSome(a.Unknown, "the command is not known-safe")
	}
	if a.Level == LevelBuild && !sandboxed {
		return joinSome(a.Builds, "a build") + " runs project code, which is known-safe only inside the sandbox (it is not active)"
	}
	return "known-safe (" + a.Level.String() + ")"
}

// joinSome joins up to three distinct items, or returns fallback.
func joinSome(items []string, fallback string) string {
	if len(items) == 0 {
		return fallback
	}
	seen := map[string]bool{}
	var parts []string
	for _, it := range items {
		if !seen[it] {
			seen[it] = true
			parts = append(parts, it)
		}
	}
	if len(parts) > 3 {
		parts = append(parts[:3], fmt.Sprintf("and %d more", len(parts)-3))
	}
	return strings.Join(parts, "; ")
}

// Summary is a one-line, human-readable list of the dangers.
func (a *Analysis) Summary() string {
	if len(a.Dangers) == 0 {
		return "no danger found"
	}
	seen := map[string]bool{}
	var parts []string
	for _, d := range a.Dangers {
		s := d.Class
		if d.Detail != "" {
			s += ": " + d.Detail
		}
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	if len(parts) > 4 {
		parts = append(parts[:4], fmt.Sprintf("and %d more", len(parts)-4))
	}
	return strings.Join(parts, "; ")
}

// Forms are the texts deny and ask rules match for this command: as
// written, and as it will run — every command a wrapper runs, each with the
// program's directory and .exe dropped and git's global options removed
// (`sudo /usr/bin/git -C x push` is also `git push`).
func (c Command) Forms() []string {
	var out []string
	seen := map[string]bool{}
	add := func(argv []string) {
		if t := joinArgv(argv); len(argv) > 0 && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	argv := c.Argv
	for range maxNesting {
		if len(argv) == 0 {
			break
		}
		add(argv)
		add(asRun(argv))
		inner, ok := unwrap(argv)
		if !ok {
			break
		}
		argv = inner
	}
	for _, u := range c.Unwrapped {
		if !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// asRun drops the program's directory and .exe, and git's global options.
func asRun(argv []string) []string {
	name := cmdName(argv[0])
	if l := strings.ToLower(name); strings.HasSuffix(l, ".exe") {
		name = name[:len(name)-4]
	}
	out := append([]string{name}, argv[1:]...)
	if name == "git" {
		i := GitSubcommand(argv[1:])
		out = append([]string{"git"}, argv[1+i:]...)
	}
	return out
}
