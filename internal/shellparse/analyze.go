// Package shellparse judges a run_shell command before it runs. It parses the
// command with a real bash parser (mvdan.cc/sh/v3), visits every simple
// command — through pipes, lists, subshells, substitutions, nested `bash -c`
// strings and wrappers such as sudo or xargs — and reports danger classes,
// whether the whole command is read-only, and the simple commands themselves
// so permission rules can match each one separately. Anything it cannot
// parse or resolve statically is treated as dangerous.
package shellparse

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Danger classes.
const (
	ClassUnparsable    = "unparsable"
	ClassDynamic       = "dynamic-command"
	ClassDelete        = "deletion"
	ClassRecursiveDel  = "recursive-delete"
	ClassOutsideDelete = "delete-outside-project"
	ClassGit           = "destructive-git"
	ClassPrivilege     = "privilege-escalation"
	ClassDisk          = "disk-write"
	ClassKill          = "kill-process"
	ClassPower         = "power-state"
	ClassRCE           = "remote-code-execution"
	ClassPermSweep     = "permission-sweep"
	ClassCredential    = "credential-write"
	ClassShellRC       = "shell-rc-write"
	ClassSystemWrite   = "system-file-write"
	ClassProtected     = "protected-path"
	ClassForkBomb      = "fork-bomb"
	ClassSystemConfig  = "system-config"
	ClassOpaque        = "opaque-script"
	maxNesting         = 8
	maxNodes           = 50000
)

// Options tell the analyser where it runs so paths can be resolved.
type Options struct {
	// Root is the absolute project root.
	Root string
	// Home is the user's home directory (for ~ and $HOME).
	Home string
	// HewHome is $HEW_HOME, whose settings.json is protected.
	HewHome string
	// Cwd is where the command starts; empty means Root.
	Cwd string
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
	// Core is Text with harmless wrappers (timeout, nice, env, xargs…)
	// stripped: what an allow rule must match, so `timeout:*` never allows
	// `timeout 1 rm -rf /`. Privileged wrappers (sudo) are kept.
	Core string
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

// analyser carries state through one Analyze call.
type analyser struct {
	opts     Options
	a        *Analysis
	cwd      string
	readOnly bool
	funcs    map[string]bool
	count    int
}

// Analyze parses and judges cmd. It never panics; a parse failure yields an
// Analysis with Err set and an "unparsable" danger.
func Analyze(cmd string, opts Options) (res *Analysis) {
	res = &Analysis{}
	defer func() {
		if r := recover(); r != nil {
			res = &Analysis{Err: fmt.Errorf("analyser failure: %v", r)}
			res.Dangers = []Danger{{Class: ClassUnparsable, Command: cmd, Detail: res.Err.Error()}}
		}
	}()
	if opts.Cwd == "" {
		opts.Cwd = opts.Root
	}
	z := &analyser{opts: opts, a: res, cwd: opts.Cwd, readOnly: true, funcs: map[string]bool{}}
	z.source(cmd, 0, false)
	res.ReadOnly = z.readOnly && len(res.Dangers) == 0 && res.Err == nil
	return res
}

// source parses src and analyses every statement in it.
func (z *analyser) source(src string, depth int, nested bool) {
	if depth > maxNesting {
		z.danger(ClassUnparsable, src, "shell strings nested too deeply to judge")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if z.a.Err == nil {
			z.a.Err = err
		}
		z.danger(ClassUnparsable, src, "cannot parse: "+err.Error())
		return
	}
	z.walk(f, depth, nested)
}

// walk visits every node of a parsed tree.
func (z *analyser) walk(root syntax.Node, depth int, nested bool) {
	redirs := map[*syntax.CallExpr][]*syntax.Redirect{}
	inSubst := map[*syntax.CallExpr]bool{}
	syntax.Walk(root, func(n syntax.Node) bool {
		z.count++
		if z.count > maxNodes {
			z.danger(ClassUnparsable, "", "command too large to judge")
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background {
				z.readOnly = false
			}
			if call, ok := n.Cmd.(*syntax.CallExpr); ok {
				redirs[call] = n.Redirs
			} else {
				for _, r := range n.Redirs {
					z.redirect(r, "", depth)
				}
			}
		case *syntax.CmdSubst, *syntax.ProcSubst:
			syntax.Walk(n, func(m syntax.Node) bool {
				if c, ok := m.(*syntax.CallExpr); ok {
					inSubst[c] = true
				}
				return true
			})
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				z.pipeline(n)
			}
		case *syntax.FuncDecl:
			z.funcDecl(n)
		case *syntax.CallExpr:
			z.call(n, redirs[n], depth, nested || inSubst[n])
		case *syntax.DeclClause:
			// export/declare/local only set variables; values with
			// substitutions are visited as children.
		case *syntax.CoprocClause:
			z.readOnly = false
		}
		return true
	})
}

// danger records a danger.
func (z *analyser) danger(class, cmd, detail string) {
	z.a.Dangers = append(z.a.Dangers, Danger{Class: class, Command: cmd, Detail: detail})
}

// call analyses one simple command with its statement's redirections.
func (z *analyser) call(c *syntax.CallExpr, redirs []*syntax.Redirect, depth int, nested bool) {
	before := len(z.a.Dangers)
	idx := -1
	if len(c.Args) > 0 {
		// Reserve the slot so an outer command precedes what it runs.
		idx = len(z.a.Commands)
		z.a.Commands = append(z.a.Commands, Command{})
	}
	var words []word
	for _, w := range c.Args {
		words = append(words, z.word(w))
	}
	cmd := Command{Nested: nested, ReadOnly: true}
	for _, w := range words {
		cmd.Argv = append(cmd.Argv, w.val)
		if w.dynamic {
			cmd.Dynamic = true
		}
	}
	cmd.Text = joinArgv(cmd.Argv)
	cmd.Core = coreText(cmd.Argv)
	for _, r := range redirs {
		if !z.redirect(r, cmd.Text, depth) {
			cmd.ReadOnly = false
		}
	}
	risky := len(z.a.Dangers) > before || len(words) > 0 && words[0].dynamic
	if len(words) > 0 {
		ro, inner := z.argv(words, cmd.Text, depth, redirs)
		cmd.ReadOnly = cmd.ReadOnly && ro
		cmd.Unwrapped = inner
	}
	for _, as := range c.Assigns {
		if as.Name != nil && (as.Name.Value == "PATH" || as.Name.Value == "LD_PRELOAD" || as.Name.Value == "BASH_ENV") && len(words) > 0 {
			z.danger(ClassDynamic, cmd.Text, as.Name.Value+"= changes what the command runs")
			risky = true
		}
	}
	cmd.Risky = risky
	if !cmd.ReadOnly {
		z.readOnly = false
	}
	if idx >= 0 {
		z.a.Commands[idx] = cmd
	}
}

// redirect judges one redirection; it reports whether it is harmless for
// read-only purposes (input, fd duplication, /dev/null).
func (z *analyser) redirect(r *syntax.Redirect, cmdText string, depth int) bool {
	switch r.Op {
	case syntax.RdrIn, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	case syntax.DplOut:
		if r.Word != nil {
			w := z.word(r.Word)
			if !w.dynamic && (w.val == "-" || isDigits(w.val)) {
				return true
			}
		}
	}
	if r.Word == nil {
		return false
	}
	w := z.word(r.Word)
	if w.dynamic {
		return false
	}
	if harmlessDevice(w.val) {
		return true
	}
	z.write(w.val, cmdText)
	return false
}

// write records a write to target (as written) and flags sensitive targets.
func (z *analyser) write(target, cmdText string) {
	abs := z.resolve(target)
	z.a.Writes = append(z.a.Writes, abs)
	if class, why := z.sensitive(abs); class != "" {
		if class == ClassProtected || class == ClassShellRC {
			z.a.Protected = append(z.a.Protected, abs)
		}
		z.danger(class, cmdText, "writes "+abs+" ("+why+")")
	}
}

// pipeline flags a download piped into an interpreter.
func (z *analyser) pipeline(b *syntax.BinaryCmd) {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) {
			flatten(bc.X)
			flatten(bc.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(b.X)
	flatten(b.Y)
	download := false
	for i, st := range stages {
		name, args := z.stageName(st)
		if download && isInterpreter(name, args) {
			z.danger(ClassRCE, name, "downloaded content piped into "+name)
			return
		}
		if i > 0 && isShell(name) && isInterpreter(name, args) {
			z.danger(ClassOpaque, name, name+" runs commands read from a pipe, which cannot be judged")
			return
		}
		if isDownloader(name) {
			download = true
		}
	}
}

// stageName returns the effective command name of a pipeline stage (after
// wrappers) and its remaining arguments.
func (z *analyser) stageName(st *syntax.Stmt) (string, []string) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", nil
	}
	var argv []string
	for _, w := range call.Args {
		argv = append(argv, z.word(w).val)
	}
	for range maxNesting {
		inner, ok := unwrap(argv)
		if !ok || len(inner) == 0 {
			break
		}
		argv = inner
	}
	return cmdName(argv[0]), argv[1:]
}

// funcDecl flags self-recursive functions (the classic fork bomb).
func (z *analyser) funcDecl(fd *syntax.FuncDecl) {
	if fd.Name == nil {
		return
	}
	name := fd.Name.Value
	z.funcs[name] = true
	recursive := false
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == name {
			recursive = true
		}
		return !recursive
	})
	if recursive {
		z.danger(ClassForkBomb, name, "function "+name+" calls itself")
	}
}

// substHasDownload reports whether a word contains a command or process
// substitution that downloads something.
func (z *analyser) substHasDownload(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			var argv []string
			for _, a := range c.Args {
				argv = append(argv, z.word(a).val)
			}
			for range maxNesting {
				inner, ok := unwrap(argv)
				if !ok || len(inner) == 0 {
					break
				}
				argv = inner
			}
			if isDownloader(cmdName(argv[0])) {
				found = true
			}
		}
		return !found
	})
	return found
}

// coreText strips non-privileged wrappers from argv.
func coreText(argv []string) string {
	for range maxNesting {
		i, ok := unwrapIdx(argv)
		if !ok || wrappers[cmdName(argv[0])].privilege {
			break
		}
		argv = argv[i:]
	}
	return joinArgv(argv)
}

// joinArgv renders argv as shell text, quoting words that need it.
func joinArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = quoteWord(a)
	}
	return strings.Join(parts, " ")
}

func quoteWord(a string) string {
	if a == "" {
		return "''"
	}
	if !strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()#!*?[]~") {
		return a
	}
	q, err := syntax.Quote(a, syntax.LangBash)
	if err != nil {
		return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return q
}

// cmdName is the command name without directory, as the shell would find it.
func cmdName(s string) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return s
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
