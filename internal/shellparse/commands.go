package shellparse

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// argv judges one command's words. It returns the command's level and the
// texts of any commands it wraps.
func (z *analyser) argv(words []word, text string, depth int, redirs []*syntax.Redirect) (Level, []string) {
	w0 := words[0]
	if w0.dynamic {
		z.danger(ClassDynamic, text, "the command name "+w0.val+" is only known at run time")
		return LevelUnknown, nil
	}
	if why := badPath(w0.val); why != "" {
		return z.unknown("the command name " + quoteWord(w0.val) + " " + why), nil
	}
	name := cmdName(w0.val)
	lname := strings.TrimSuffix(strings.ToLower(name), ".exe")
	args := make([]string, len(words)-1)
	for i, w := range words[1:] {
		args[i] = w.val
	}
	if z.funcs[name] {
		return LevelReadOnly, nil // the body was judged where it was defined
	}
	if depth > maxNesting {
		z.danger(ClassUnparsable, text, "wrappers nested too deeply to judge")
		return LevelUnknown, nil
	}
	lvl, inner := z.program(name, lname, words, args, text, depth, redirs)
	if pathProgram(w0.val) {
		if build, ok := projectWrapper(w0.val); ok && lvl <= LevelBuild && !anyShips(args) {
			z.a.Builds = append(z.a.Builds, "`"+build+"`")
			return LevelBuild, inner
		}
		return z.unknown("`" + w0.val + "` is a program given by its path, not a known system command"), inner
	}
	return lvl, inner
}

// program judges a command by its name (path stripped).
func (z *analyser) program(name, lname string, words []word, args []string, text string, depth int, redirs []*syntax.Redirect) (Level, []string) {
	// Commands that run other commands.
	if isShell(lname) {
		return z.shell(words, text, depth, redirs)
	}
	switch lname {
	case "eval":
		z.downloadSubst(words, text)
		var parts []string
		for _, w := range words[1:] {
			if w.dynamic {
				z.danger(ClassDynamic, text, "eval of text only known at run time")
				return LevelUnknown, nil
			}
			parts = append(parts, w.val)
		}
		src := strings.Join(parts, " ")
		return z.source(src, depth+1, true), []string{src}
	case "source", ".":
		z.downloadSubst(words, text)
		return z.unknown("`" + name + "` runs a script file whose content is not judged"), nil
	case "su":
		z.danger(ClassPrivilege, text, "runs as another user")
		for i, a := range args {
			if (a == "-c" || a == "--command") && i+1 < len(args) {
				if words[i+2].dynamic {
					z.danger(ClassDynamic, text, "su -c with text only known at run time")
				} else {
					z.source(args[i+1], depth+1, true)
				}
				return LevelUnknown, []string{args[i+1]}
			}
		}
		return LevelUnknown, nil
	case "cmd":
		for i, a := range args {
			if strings.EqualFold(a, "/c") || strings.EqualFold(a, "/k") {
				src := strings.Join(args[i+1:], " ")
				z.source(src, depth+1, true)
				return z.unknown("`cmd /c` runs a Windows command line, which is not judged as known-safe"), []string{src}
			}
		}
		return z.unknown("`cmd` is not a known-safe command"), nil
	case "find":
		return z.find(words, text, depth)
	case "exec":
		if len(words) == 1 {
			return LevelReadOnly, nil // only redirections, judged on their own
		}
	case "xargs":
		if _, ok := unwrapIdx(words2argv(words)); !ok {
			return LevelReadOnly, nil // without a command xargs runs echo
		}
	}
	if start, ok := unwrapIdx(words2argv(words)); ok {
		spec := wrappers[cmdName(words[0].val)]
		if spec.privilege {
			z.danger(ClassPrivilege, text, name+" runs the command with raised privileges")
		}
		if lname == "env" {
			for _, w := range words[1:start] {
				if n, _, ok := strings.Cut(w.val, "="); ok && !strings.HasPrefix(w.val, "-") && riskyVar(n) {
					z.danger(ClassDynamic, text, n+"= changes which programs run or what they load")
				}
				if w.val == "-S" || strings.HasPrefix(w.val, "--split-string") {
					z.raise(z.unknown("`env -S` splits a string into a command that is not judged"))
				}
			}
		}
		inner := words[start:]
		if lname == "xargs" {
			// xargs appends arguments read from stdin, or puts them where
			// -I's replace-string stands: unknown targets, unknown code.
			repl := ""
			for i, w := range words[1:start] {
				switch {
				case (w.val == "-I" || w.val == "--replace") && i+2 < start:
					repl = words[i+2].val
				case strings.HasPrefix(w.val, "-I") && len(w.val) > 2:
					repl = w.val[2:]
				case w.val == "-i" || w.val == "--replace":
					repl = "{}"
				case strings.HasPrefix(w.val, "--replace="):
					repl = strings.TrimPrefix(w.val, "--replace=")
				}
			}
			inner = append([]word{}, inner...)
			for i := range inner {
				if repl != "" && strings.Contains(inner[i].val, repl) {
					inner[i].dynamic = true
				}
			}
			inner = append(inner, word{val: "{stdin}", dynamic: true})
		}
		innerText := joinArgv(words2argv(inner))
		lvl, more := z.argv(inner, innerText, depth+1, nil)
		if spec.privilege {
			lvl = LevelUnknown
		} else if !spec.transparent {
			lvl = max(lvl, z.unknown("`"+name+"` is not a known-safe wrapper"))
		}
		if lname == "time" && hasFlag(args[:start-1], "o", "--output") {
			lvl = max(lvl, z.unknown("`time -o` writes a file"))
		}
		return lvl, append([]string{innerText}, more...)
	}
	if wrappers[lname].privilege || lname == "sudo" || lname == "doas" || lname == "pkexec" || lname == "sudoedit" || lname == "runas" {
		z.danger(ClassPrivilege, text, name+" raises privileges")
		return LevelUnknown, nil
	}
	if lname == "cd" || lname == "pushd" || lname == "set-location" || lname == "sl" {
		z.chdir(words[1:])
		if lname == "pushd" && len(args) > 0 && (strings.HasPrefix(args[0], "+") || strings.HasPrefix(args[0], "-") && len(args[0]) > 1 && isDigits(args[0][1:])) {
			z.cwd = unknownCwd // rotates the directory stack
		}
		return LevelReadOnly, nil
	}
	if lname == "popd" {
		z.cwd = unknownCwd // back to a directory the analysis does not track
		return LevelReadOnly, nil
	}
	if lname == "powershell" || lname == "pwsh" {
		z.powershell(words, text, depth)
		return z.unknown("`" + name + "` runs PowerShell code, which is not judged as known-safe"), nil
	}
	if _, ok := interpreters[lname]; ok || strings.HasPrefix(lname, "python") {
		return z.interpreter(name, lname, words, args, text), nil
	}
	return z.plain(name, lname, words, args, text), nil
}

// pathProgram reports whether a command is given as a path that is not a
// standard system directory (./ls, /tmp/x/rg, bin/tool): it is not the
// program the allowlist vouches for.
func pathProgram(w string) bool {
	if !strings.ContainsAny(w, `/\`) {
		return false
	}
	for _, dir := range []string{"/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/"} {
		if rest, ok := strings.CutPrefix(w, dir); ok && rest != "" && !strings.ContainsAny(rest, `/\`) {
			return false
		}
	}
	return true
}

// projectWrapper recognises a project's own build wrapper script run from
// the project root (./gradlew, ./mvnw).
func projectWrapper(w string) (string, bool) {
	switch w {
	case "./gradlew", "./mvnw", "gradlew.bat", "mvnw.cmd", `.\gradlew.bat`, `.\mvnw.cmd`:
		return w, true
	}
	return "", false
}

// interpreter judges python, node, ruby… invocations: version queries are
// read-only, test runners builds, scripts and inline code unknown.
func (z *analyser) interpreter(name, lname string, words []word, args []string, text string) Level {
	z.downloadSubst(words, text)
	if lvl, what, ok := buildLevel(lname, args); ok && lvl != LevelUnknown {
		if lvl == LevelBuild {
			z.a.Builds = append(z.a.Builds, "`"+what+"`")
		}
		return lvl
	}
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-V" || args[0] == "-v" || args[0] == "version") {
		return LevelReadOnly
	}
	if strings.HasPrefix(lname, "python") || lname == "pypy" || lname == "pypy3" {
		if len(args) >= 2 && args[0] == "-m" {
			if args[1] == "json.tool" && len(operands(words[3:])) <= 1 {
				return LevelReadOnly // pretty-prints a file or stdin to stdout
			}
			if pythonBuildModules[args[1]] {
				z.a.Builds = append(z.a.Builds, "`"+name+" -m "+args[1]+"`")
				return LevelBuild
			}
			return z.unknown("`" + name + " -m " + args[1] + "` runs a module that is not known-safe")
		}
	}
	z.inlineCode(lname, args, text)
	codeFlags := interpreters[lname]
	if strings.HasPrefix(lname, "python") {
		codeFlags = interpreters["python"]
	}
	for _, a := range args {
		for _, f := range codeFlags {
			if a == f {
				return z.unknown("`" + name + " " + f + "` runs inline code, which is not judged")
			}
		}
		if !strings.HasPrefix(a, "-") {
			return z.unknown("`" + name + " " + a + "` runs a script whose content is not judged")
		}
	}
	return z.unknown("`" + name + "` runs code that is not judged")
}

// shell handles bash/sh/zsh…: -c strings and heredocs are parsed in turn.
func (z *analyser) shell(words []word, text string, depth int, redirs []*syntax.Redirect) (Level, []string) {
	z.downloadSubst(words, text)
	name := cmdName(words[0].val)
	cflag := false
	for i := 1; i < len(words); i++ {
		a := words[i].val
		if a == "-o" || a == "+o" || a == "-O" || a == "+O" {
			i++
			continue
		}
		if a == "--rcfile" || a == "--init-file" {
			return z.unknown("`" + name + " " + a + "` reads a start-up file that is not judged"), nil
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
			cflag = true
			continue
		}
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+") {
			if strings.Contains(a, "i") && !strings.HasPrefix(a, "--") || a == "--login" || strings.Contains(a, "l") && !strings.HasPrefix(a, "--") {
				// Interactive and login shells read start-up files.
				return z.unknown("`" + name + " " + a + "` reads start-up files that are not judged"), nil
			}
			continue
		}
		if cflag {
			if words[i].dynamic {
				z.danger(ClassDynamic, text, "shell -c with text only known at run time")
				return LevelUnknown, nil
			}
			return z.source(a, depth+1, true), []string{a}
		}
		// A script file: its content is not judged here.
		return z.unknown("`" + name + " " + a + "` runs a script whose content is not judged"), nil
	}
	for _, r := range redirs {
		if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil {
			body := z.word(r.Hdoc)
			if body.dynamic {
				z.danger(ClassDynamic, text, "shell reads a here-document with substitutions")
				return LevelUnknown, nil
			}
			return z.source(body.val, depth+1, true), nil
		}
		if r.Op == syntax.WordHdoc && r.Word != nil {
			body := z.word(r.Word)
			if body.dynamic {
				z.danger(ClassDynamic, text, "shell reads a here-string only known at run time")
				return LevelUnknown, nil
			}
			return z.source(body.val, depth+1, true), nil
		}
	}
	return z.unknown("`" + name + "` runs commands read from its input, which cannot be judged"), nil
}

// downloadSubst flags `bash <(curl …)`, `sh -c "$(curl …)"`, `source <(…)`.
func (z *analyser) downloadSubst(words []word, text string) {
	for _, w := range words[1:] {
		if w.node != nil && z.substHasDownload(w.node) {
			z.danger(ClassRCE, text, "runs code downloaded by a substitution")
			return
		}
	}
}

// inlineCode flags inline interpreter code that deletes files or shells out
// to a deletion.
func (z *analyser) inlineCode(lname string, args []string, text string) {
	code := strings.Join(args, " ")
	for _, pat := range []string{"rmtree", "os.remove", "os.unlink", "os.rmdir", "unlinkSync", "rmSync", "rmdirSync", "rm_rf", "FileUtils.rm", "unlink", "remove_tree", "rm -rf", "rm -r", "Remove-Item", "shutil.move"} {
		if strings.Contains(code, pat) {
			z.danger(ClassDelete, text, lname+" code deletes files ("+pat+")")
			return
		}
	}
	for _, pat := range []string{"os.system", "subprocess", "child_process", "exec(", "system(", "Runtime.getRuntime"} {
		if strings.Contains(code, pat) {
			z.danger(ClassOpaque, text, lname+" code runs other programs ("+pat+")")
			return
		}
	}
}

// chdir follows cd so later relative paths resolve where they will run.
func (z *analyser) chdir(args []word) {
	var dir *word
	for i := range args {
		if !strings.HasPrefix(args[i].val, "-") || args[i].val == "-" {
			dir = &args[i]
			break
		}
	}
	switch {
	case dir == nil:
		if z.opts.Home != "" {
			z.cwd = z.opts.Home
		}
	case dir.dynamic || dir.val == "-" || dir.glob:
		z.cwd = unknownCwd
	default:
		z.cwd = z.resolve(dir.val)
	}
}

// unknownCwd stands for a working directory that cannot be known statically;
// it lies outside any project, so relative deletions there always ask.
const unknownCwd = "/(unknown directory)"

// find handles find's actions: -delete, -exec and friends, -fprint.
func (z *analyser) find(words []word, text string, depth int) (Level, []string) {
	lvl := LevelReadOnly
	var inner []string
	var targets []word
	exprStarted := false
	for i := 1; i < len(words); i++ {
		a := words[i].val
		if !exprStarted && (strings.HasPrefix(a, "-") || a == "(" || a == "!") {
			exprStarted = true
		}
		if !exprStarted {
			targets = append(targets, words[i])
			continue
		}
		switch a {
		case "-delete":
			lvl = LevelUnknown
			z.danger(ClassRecursiveDel, text, "find -delete removes every match")
			if len(targets) == 0 {
				targets = []word{{val: "."}}
			}
			for _, t := range targets {
				t.glob = true // find deletes matches below its start points
				z.deleteTarget(t, text)
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(words) && words[j].val != ";" && words[j].val != "+" {
				j++
			}
			if j > i+1 {
				cmd := make([]word, 0, j-i-1)
				for _, w := range words[i+1 : j] {
					if strings.Contains(w.val, "{}") {
						w.dynamic = true
					}
					cmd = append(cmd, w)
				}
				innerText := joinArgv(words2argv(cmd))
				inner = append(inner, innerText)
				il, more := z.argv(cmd, innerText, depth+1, nil)
				inner = append(inner, more...)
				lvl = max(lvl, il)
			} else {
				lvl = max(lvl, z.unknown("`find "+a+"` without a command"))
			}
			i = j
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(words) {
				lvl = max(lvl, z.writeLevel(words[i+1], text))
			} else {
				lvl = max(lvl, z.unknown("`find "+a+"` writes a file"))
			}
		}
	}
	return lvl, inner
}

func words2argv(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.val
	}
	return out
}

// operands returns the non-option arguments (everything after "--" counts).
func operands(ws []word) []word {
	var out []word
	dd := false
	for _, w := range ws {
		if !dd && w.val == "--" {
			dd = true
			continue
		}
		if !dd && strings.HasPrefix(w.val, "-") && len(w.val) > 1 && !w.dynamic {
			continue
		}
		out = append(out, w)
	}
	return out
}

// hasFlag reports whether args contain a long flag or a short flag letter
// (possibly combined, like -rf).
func hasFlag(args []string, short string, long ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		for _, l := range long {
			if a == l || strings.HasPrefix(a, l+"=") {
				return true
			}
		}
		if short != "" && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], short) {
			return true
		}
	}
	return false
}

// winFlag reports whether args contain a Windows-style /X flag.
func winFlag(args []string, letters ...string) bool {
	for _, a := range args {
		for _, l := range letters {
			if strings.EqualFold(a, "/"+l) {
				return true
			}
		}
	}
	return false
}

// psFlag reports whether args contain a PowerShell parameter or an
// unambiguous abbreviation of it (-Recurse, -rec, -r).
func psFlag(args []string, param string, minLen int) bool {
	lp := strings.ToLower(param)
	for _, a := range args {
		la := strings.ToLower(strings.TrimPrefix(a, "-"))
		if !strings.HasPrefix(a, "-") || len(la) < minLen {
			continue
		}
		if strings.HasPrefix(lp, strings.TrimSuffix(la, ":$true")) {
			return true
		}
	}
	return false
}

// anyShips reports a task name among args that ships or deploys.
func anyShips(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && ships(a) {
			return true
		}
	}
	return false
}
