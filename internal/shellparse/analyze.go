// Package shellparse judges a run_shell command before it runs. It parses the
// command with a real bash parser (mvdan.cc/sh/v3), visits every simple
// command — through pipes, lists, subshells, substitutions, nested `bash -c`
// strings and wrappers such as sudo or xargs — and places each one in a
// known-safe level (read-only, local project work, project build/test) or
// calls it unknown. It is an allowlist: a program or an argument it does not
// know makes the command unknown, so the caller asks. Known-dangerous
// classes (deletion, publishing, infrastructure changes…) are reported on
// top with specific reasons. The simple commands are returned too, so
// permission rules can match each one separately. Anything it cannot parse
// or resolve statically is treated as dangerous.
package shellparse

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
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
	ClassPublish       = "publish"
	ClassInfra         = "infrastructure-change"
	ClassDatabase      = "database-destroy"
	ClassHistoryWipe   = "history-wipe"
	ClassPersistence   = "persistence"
	ClassNetwork       = "network-client"
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

// Levels, from harmless to unknown.
const (
	// LevelReadOnly commands change nothing: vetted programs with vetted
	// arguments.
	LevelReadOnly Level = iota
	// LevelLocal is local, recoverable project work: git add/commit,
	// mkdir, touch, cp/mv and output written inside the project.
	LevelLocal
	// LevelBuild is the project's own build or test run (go test, make,
	// npm test…): known-safe only while the sandbox confines it.
	LevelBuild
	// LevelUnknown is anything else.
	LevelUnknown
)

// Class names of the levels, as `hew permissions check` prints them.
const (
	ClassReadOnly = "read-only"
	ClassLocal    = "local-work"
	ClassBuild    = "project-build"
	ClassUnknown  = "unknown"
)

// analyser carries state through one Analyze call.
type analyser struct {
	opts  Options
	a     *Analysis
	cwd   string
	level Level
	funcs map[string]bool
	count int
	// resolved remembers resolve's results for this analysis.
	resolved map[string]string
}

// raise lifts the running level to at least l.
func (z *analyser) raise(l Level) {
	if l > z.level {
		z.level = l
	}
}

// unknown records why a command is not known-safe and returns LevelUnknown.
func (z *analyser) unknown(why string) Level {
	z.a.Unknown = append(z.a.Unknown, why)
	return LevelUnknown
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
	z := &analyser{opts: opts, a: res, cwd: opts.Cwd, funcs: map[string]bool{}}
	z.source(cmd, 0, false)
	if len(res.Dangers) > 0 || res.Err != nil {
		z.level = LevelUnknown
	}
	res.Level = z.level
	res.ReadOnly = res.Level == LevelReadOnly
	return res
}

// source parses src and analyses every statement in it; it returns the
// highest level of what src runs.
func (z *analyser) source(src string, depth int, nested bool) Level {
	if depth > maxNesting {
		z.danger(ClassUnparsable, src, "shell strings nested too deeply to judge")
		return LevelUnknown
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if z.a.Err == nil {
			z.a.Err = err
		}
		z.danger(ClassUnparsable, src, "cannot parse: "+err.Error())
		return LevelUnknown
	}
	saved := z.level
	z.level = LevelReadOnly
	z.walk(f, depth, nested)
	got := z.level
	z.level = max(saved, got)
	return got
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
			if call, ok := n.Cmd.(*syntax.CallExpr); ok {
				redirs[call] = n.Redirs
			} else {
				for _, r := range n.Redirs {
					z.raise(z.redirect(r, "", depth))
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
			// export/declare/local only set variables (values with
			// substitutions are visited as children), but some variables
			// change what later commands run.
			for _, as := range n.Args {
				z.assign(as, n.Variant.Value)
			}
		case *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.TestClause, *syntax.LetClause:
			z.arithmetic(n)
		case *syntax.CoprocClause:
			z.raise(z.unknown("coproc runs a background co-process"))
		case *syntax.WhileClause, *syntax.ForClause:
			syntax.Walk(n, func(m syntax.Node) bool {
				if st, ok := m.(*syntax.Stmt); ok && st.Background {
					z.danger(ClassForkBomb, "", "a loop starts background jobs, which can exhaust the machine")
					return false
				}
				return true
			})
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
	braces := ""
	for _, w := range c.Args {
		// Brace expansion happens before the command runs: `cp a {b,/etc/x}`
		// is `cp a b /etc/x`. Judge the words the shell will pass.
		// (on a copy: the tree being walked must keep its node types).
		if cw := (&syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}); syntax.SplitBraces(cw) {
			n := 0
			for ew, err := range expand.BracesSeq(nil, cw) {
				if err != nil || n >= 256 {
					braces = "a brace expansion too large to judge"
					break
				}
				n++
				words = append(words, z.word(ew))
			}
			continue
		}
		words = append(words, z.word(w))
	}
	cmd := Command{Nested: nested}
	for _, w := range words {
		cmd.Argv = append(cmd.Argv, w.val)
		if w.dynamic {
			cmd.Dynamic = true
		}
	}
	cmd.Text = joinArgv(cmd.Argv)
	cmd.CoreArgv = coreArgv(cmd.Argv)
	cmd.Core = joinArgv(cmd.CoreArgv)
	lvl := LevelReadOnly
	if braces != "" {
		lvl = z.unknown(braces)
	}
	for _, r := range redirs {
		lvl = max(lvl, z.redirect(r, cmd.Text, depth))
	}
	risky := len(z.a.Dangers) > before || len(words) > 0 && words[0].dynamic
	for _, as := range c.Assigns {
		if z.assign(as, "") && len(words) > 0 {
			risky = true
		}
	}
	if len(words) > 0 {
		l, inner := z.argv(words, cmd.Text, depth, redirs)
		lvl = max(lvl, l)
		cmd.Unwrapped = inner
	}
	if len(z.a.Dangers) > before {
		lvl = LevelUnknown
	}
	cmd.Risky = risky
	cmd.Level = lvl
	cmd.ReadOnly = lvl == LevelReadOnly
	z.raise(lvl)
	if idx >= 0 {
		z.a.Commands[idx] = cmd
	}
}

// assign judges one variable assignment (a prefix, a bare assignment or an
// export/declare). It reports whether the variable changes what commands
// run or what they load.
func (z *analyser) assign(as *syntax.Assign, decl string) bool {
	if as == nil || as.Name == nil {
		return false
	}
	name := as.Name.Value
	if decl == "export" || decl == "declare" || decl == "local" || decl == "typeset" || decl == "readonly" || decl == "" {
		if name == "HISTFILE" || name == "HISTSIZE" || name == "HISTFILESIZE" {
			z.danger(ClassHistoryWipe, name, "setting "+name+" stops or redirects the shell history")
			return true
		}
		if riskyVar(name) {
			z.danger(ClassDynamic, name, name+"= changes which programs run or what they load")
			return true
		}
	}
	return false
}

// arithmetic flags arithmetic contexts whose operands hold text with a
// command substitution: bash evaluates `a[$(cmd)]` there and runs cmd.
func (z *analyser) arithmetic(n syntax.Node) {
	syntax.Walk(n, func(m syntax.Node) bool {
		if w, ok := m.(*syntax.Word); ok {
			if v := z.word(w).val; strings.Contains(v, "$(") || strings.Contains(v, "`") {
				z.raise(z.unknown("arithmetic on text that may run a command (" + v + ")"))
			}
		}
		return true
	})
}

// redirect judges one redirection and returns its level: input, fd
// duplication and harmless devices are read-only, writes inside the project
// (or temp) local work, anything else unknown.
func (z *analyser) redirect(r *syntax.Redirect, cmdText string, depth int) Level {
	switch r.Op {
	case syntax.RdrIn, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		if r.Word != nil && (r.Op == syntax.RdrIn || r.Op == syntax.DplIn) {
			if w := z.word(r.Word); isNetDevice(w.val) {
				z.danger(ClassNetwork, cmdText, "reads from the network through "+w.val)
				return LevelUnknown
			}
		}
		return LevelReadOnly
	case syntax.DplOut:
		if r.Word != nil {
			w := z.word(r.Word)
			if !w.dynamic && (w.val == "-" || isDigits(w.val)) {
				return LevelReadOnly
			}
		}
	}
	if r.Word == nil {
		return z.unknown("a redirection without a target")
	}
	w := z.word(r.Word)
	if w.dynamic {
		return z.unknown("output goes to " + w.val + ", a path only known at run time")
	}
	if isNetDevice(w.val) {
		z.danger(ClassNetwork, cmdText, "sends output to the network through "+w.val)
		return LevelUnknown
	}
	if harmlessDevice(w.val) {
		return LevelReadOnly
	}
	return z.writeLevel(w, cmdText)
}

// isNetDevice reports bash's network pseudo-files.
func isNetDevice(p string) bool {
	return strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")
}

// writeLevel records a file write and returns LevelLocal when the target
// lies in the project, LevelUnknown otherwise.
func (z *analyser) writeLevel(w word, cmdText string) Level {
	if w.dynamic {
		return z.unknown("writes " + w.val + ", a path only known at run time")
	}
	if why := badPath(w.val); why != "" {
		return z.unknown("writes a path that " + why)
	}
	abs := z.write(w.val, cmdText)
	if z.scratch(abs) {
		return LevelLocal
	}
	return z.unknown("writes " + abs + " outside the project")
}

// scratch reports whether abs lies in the project.
func (z *analyser) scratch(abs string) bool {
	return z.opts.Root != "" && within(abs, z.opts.Root)
}

// write records a write to target (as written) and flags sensitive
// targets; it returns the resolved target.
func (z *analyser) write(target, cmdText string) string {
	abs := z.resolve(target)
	z.a.Writes = append(z.a.Writes, abs)
	if class, why := z.sensitive(abs); class != "" {
		if class == ClassProtected || class == ClassShellRC {
			z.a.Protected = append(z.a.Protected, abs)
		}
		z.danger(class, cmdText, "writes "+abs+" ("+why+")")
	}
	return abs
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

// coreArgv strips non-privileged wrappers from argv.
func coreArgv(argv []string) []string {
	for range maxNesting {
		i, ok := unwrapIdx(argv)
		if !ok || wrappers[cmdName(argv[0])].privilege {
			break
		}
		argv = argv[i:]
	}
	return argv
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
