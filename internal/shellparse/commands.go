package shellparse

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// argv judges one command's words. It reports whether the command is
// read-only and the texts of any commands it wraps.
func (z *analyser) argv(words []word, text string, depth int, redirs []*syntax.Redirect) (bool, []string) {
	w0 := words[0]
	if w0.dynamic {
		z.danger(ClassDynamic, text, "the command name "+w0.val+" is only known at run time")
		return false, nil
	}
	name := cmdName(w0.val)
	lname := strings.TrimSuffix(strings.ToLower(name), ".exe")
	args := make([]string, len(words)-1)
	for i, w := range words[1:] {
		args[i] = w.val
	}
	if z.funcs[name] {
		return false, nil
	}
	if depth > maxNesting {
		z.danger(ClassUnparsable, text, "wrappers nested too deeply to judge")
		return false, nil
	}

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
				return false, nil
			}
			parts = append(parts, w.val)
		}
		src := strings.Join(parts, " ")
		z.source(src, depth+1, true)
		return true, []string{src}
	case "source", ".":
		z.downloadSubst(words, text)
		return false, nil
	case "su":
		z.danger(ClassPrivilege, text, "runs as another user")
		for i, a := range args {
			if (a == "-c" || a == "--command") && i+1 < len(args) {
				if words[i+2].dynamic {
					z.danger(ClassDynamic, text, "su -c with text only known at run time")
				} else {
					z.source(args[i+1], depth+1, true)
				}
				return false, []string{args[i+1]}
			}
		}
		return false, nil
	case "cmd":
		for i, a := range args {
			if strings.EqualFold(a, "/c") || strings.EqualFold(a, "/k") {
				src := strings.Join(args[i+1:], " ")
				z.source(src, depth+1, true)
				return false, []string{src}
			}
		}
		return false, nil
	case "find":
		return z.find(words, text, depth)
	}
	if start, ok := unwrapIdx(words2argv(words)); ok {
		spec := wrappers[cmdName(words[0].val)]
		if spec.privilege {
			z.danger(ClassPrivilege, text, name+" runs the command with raised privileges")
		}
		inner := words[start:]
		if lname == "xargs" {
			// xargs appends arguments read from stdin: unknown targets.
			inner = append(append([]word{}, inner...), word{val: "{stdin}", dynamic: true})
		}
		innerText := joinArgv(words2argv(inner))
		ro, more := z.argv(inner, innerText, depth+1, nil)
		return ro && !spec.privilege, append([]string{innerText}, more...)
	}
	if wrappers[lname].privilege || lname == "sudo" || lname == "doas" || lname == "pkexec" || lname == "sudoedit" || lname == "runas" {
		z.danger(ClassPrivilege, text, name+" raises privileges")
		return false, nil
	}
	if lname == "cd" || lname == "pushd" {
		z.chdir(words[1:])
		return true, nil
	}
	if lname == "powershell" || lname == "pwsh" {
		return z.powershell(words, text, depth)
	}
	if _, ok := interpreters[lname]; ok || strings.HasPrefix(lname, "python") {
		z.downloadSubst(words, text)
		z.inlineCode(lname, args, text)
		return false, nil
	}
	return z.plain(name, lname, words, args, text), nil
}

// shell handles bash/sh/zsh…: -c strings and heredocs are parsed in turn.
func (z *analyser) shell(words []word, text string, depth int, redirs []*syntax.Redirect) (bool, []string) {
	z.downloadSubst(words, text)
	cflag := false
	for i := 1; i < len(words); i++ {
		a := words[i].val
		if a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
			cflag = true
			continue
		}
		if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+") {
			continue
		}
		if cflag {
			if words[i].dynamic {
				z.danger(ClassDynamic, text, "shell -c with text only known at run time")
				return false, nil
			}
			z.source(a, depth+1, true)
			return true, []string{a}
		}
		// A script file: its content is not judged here.
		return false, nil
	}
	for _, r := range redirs {
		if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil {
			body := z.word(r.Hdoc)
			if body.dynamic {
				z.danger(ClassDynamic, text, "shell reads a here-document with substitutions")
				return false, nil
			}
			z.source(body.val, depth+1, true)
			return true, nil
		}
		if r.Op == syntax.WordHdoc && r.Word != nil {
			body := z.word(r.Word)
			if body.dynamic {
				z.danger(ClassDynamic, text, "shell reads a here-string only known at run time")
				return false, nil
			}
			z.source(body.val, depth+1, true)
			return true, nil
		}
	}
	return false, nil
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
func (z *analyser) find(words []word, text string, depth int) (bool, []string) {
	ro := true
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
			ro = false
			z.danger(ClassRecursiveDel, text, "find -delete removes every match")
			if len(targets) == 0 {
				targets = []word{{val: "."}}
			}
			for _, t := range targets {
				t.glob = true // find deletes matches below its start points
				z.deleteTarget(t, text)
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			ro = false
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
				iro, more := z.argv(cmd, innerText, depth+1, nil)
				inner = append(inner, more...)
				ro = iro
			}
			i = j
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			ro = false
			if i+1 < len(words) {
				z.write(words[i+1].val, text)
			}
		}
	}
	return ro, inner
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

// writeTargets records the files a file-writing command writes.
func (z *analyser) writeTargets(lname string, words []word, args []string, text string) bool {
	ops := operands(words[1:])
	switch lname {
	case "tee":
		for _, o := range ops {
			if !o.dynamic && !harmlessDevice(o.val) {
				z.write(o.val, text)
			}
		}
		return true
	case "cp", "mv", "install", "ln", "rsync", "scp":
		if t := targetDir(args); t != "" {
			z.write(t, text)
		} else if len(ops) >= 2 && !ops[len(ops)-1].dynamic {
			z.write(ops[len(ops)-1].val, text)
		}
		if lname == "mv" {
			for _, o := range ops[:max(len(ops)-1, 0)] {
				if !o.dynamic {
					if ok, why := ProtectedPath(z.resolve(o.val), z.opts.Root, z.opts.Home, z.opts.HewHome); ok {
						z.a.Protected = append(z.a.Protected, z.resolve(o.val))
						z.danger(ClassProtected, text, "moves "+z.resolve(o.val)+" ("+why+")")
					}
				}
			}
		}
		return true
	case "touch", "truncate", "chmod", "chown", "chgrp", "setfacl", "chattr":
		for i, o := range ops {
			if o.dynamic || (i == 0 && lname != "touch" && lname != "truncate") {
				continue
			}
			z.write(o.val, text)
		}
		return true
	case "sed", "perl", "gsed":
		if hasFlag(args, "i", "--in-place") {
			for i, o := range ops {
				if i == 0 || o.dynamic {
					continue
				}
				z.write(o.val, text)
			}
			return true
		}
	}
	return false
}

// targetDir returns the -t/--target-directory value of cp/mv/install/ln.
func targetDir(args []string) string {
	for i, a := range args {
		if (a == "-t" || a == "--target-directory") && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--target-directory="); ok {
			return v
		}
	}
	return ""
}

// gitConfigWrite records the file `git config` would change.
func (z *analyser) gitConfigWrite(args []string, text string) bool {
	for _, a := range args {
		switch {
		case a == "--get" || strings.HasPrefix(a, "--get-") || a == "--list" || a == "-l" ||
			strings.HasPrefix(a, "--show-") || a == "get" || a == "list" || a == "--help":
			return false
		}
	}
	var nonOpt []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			nonOpt = append(nonOpt, a)
		}
	}
	if len(nonOpt) == 1 {
		return false // `git config key` reads the value
	}
	switch {
	case hasFlag(args, "", "--global"):
		z.write(filepath.Join(z.opts.Home, ".gitconfig"), text)
	case hasFlag(args, "", "--system"):
		z.write("/etc/gitconfig", text)
	default:
		root := z.opts.Root
		if !within(z.cwd, root) {
			root = z.cwd
		}
		z.write(filepath.Join(root, ".git", "config"), text)
	}
	return true
}

// powershell parses an inline -Command as shell words (PowerShell's simple
// command syntax is close enough); encoded commands cannot be judged.
func (z *analyser) powershell(words []word, text string, depth int) (bool, []string) {
	for i := 1; i < len(words); i++ {
		a := strings.ToLower(words[i].val)
		if strings.HasPrefix(a, "-e") && strings.HasPrefix("-encodedcommand", a) && len(a) >= 2 {
			z.danger(ClassOpaque, text, "encoded PowerShell command cannot be judged")
			return false, nil
		}
		if a == "-c" || a == "-command" || a == "/c" || a == "-com" {
			rest := words[i+1:]
			for _, w := range rest {
				if w.dynamic {
					z.danger(ClassDynamic, text, "PowerShell command only known at run time")
					return false, nil
				}
			}
			src := joinRaw(words2argv(rest))
			if low := strings.ToLower(src); strings.Contains(low, "downloadstring") || strings.Contains(low, "iwr ") ||
				strings.Contains(low, "invoke-webrequest") || strings.Contains(low, "irm ") || strings.Contains(low, "invoke-restmethod") {
				if strings.Contains(low, "iex") || strings.Contains(low, "invoke-expression") {
					z.danger(ClassRCE, text, "PowerShell runs downloaded code")
				}
			}
			z.source(src, depth+1, true)
			return false, []string{src}
		}
	}
	return false, nil
}

// joinRaw joins words with spaces without quoting them again.
func joinRaw(argv []string) string { return strings.Join(argv, " ") }
