package shellparse

import (
	"path/filepath"
	"strings"
)

// writing judges commands whose job is to create or change files: local
// work when every target lies in the project, unknown otherwise.
func (z *analyser) writing(lname string, words []word, args []string, text string) (Level, bool) {
	ops := operands(words[1:])
	switch lname {
	case "tee":
		lvl := LevelReadOnly
		for _, o := range ops {
			if !harmlessDevice(o.val) {
				lvl = max(lvl, z.writeLevel(o, text))
			}
		}
		return lvl, true
	case "truncate":
		for _, o := range ops {
			if !o.dynamic {
				z.write(o.val, text)
			}
		}
		return z.unknown("`truncate` destroys file contents"), true
	case "mkdir", "touch":
		if len(ops) == 0 {
			return z.unknown("`" + lname + "` without a target"), true
		}
		lvl := LevelLocal
		for i, o := range ops {
			if lname == "mkdir" && i == 0 && hasFlag(args, "m", "--mode") && !strings.ContainsAny(o.val, "/.") {
				continue // the -m MODE value
			}
			lvl = max(lvl, z.writeLevel(o, text))
		}
		return lvl, true
	case "cp", "mv":
		dest := targetDir(args)
		srcs := ops
		if dest == "" {
			if len(ops) < 2 {
				return z.unknown("`" + lname + "` without a destination"), true
			}
			dest, srcs = ops[len(ops)-1].val, ops[:len(ops)-1]
			if ops[len(ops)-1].dynamic {
				return z.unknown("`" + lname + "` to " + dest + ", a path only known at run time"), true
			}
		}
		lvl := z.writeLevel(word{val: dest}, text)
		if lname == "mv" {
			for _, o := range srcs {
				if o.dynamic {
					lvl = max(lvl, z.unknown("`mv` moves "+o.val+", a path only known at run time"))
					continue
				}
				abs := z.resolve(o.val)
				if ok, why := ProtectedPath(abs, z.opts.Root, z.opts.Home, z.opts.HewHome); ok {
					z.a.Protected = append(z.a.Protected, abs)
					z.danger(ClassProtected, text, "moves "+abs+" ("+why+")")
				}
				if !z.scratch(abs) {
					lvl = max(lvl, z.unknown("`mv` moves "+abs+" from outside the project"))
				}
			}
		}
		return lvl, true
	case "ln":
		// A link to something outside the project turns later writes
		// through it into writes outside.
		for i, o := range ops {
			if i == len(ops)-1 && len(ops) > 1 || targetDir(args) == o.val {
				break
			}
			if o.dynamic || !z.scratch(z.resolve(o.val)) {
				return z.unknown("`ln` links to " + o.val + ", outside the project"), true
			}
		}
		if t := targetDir(args); t != "" {
			return z.writeLevel(word{val: t}, text), true
		}
		if len(ops) == 1 {
			return z.writeLevel(word{val: filepath.Base(ops[0].val)}, text), true
		}
		if len(ops) >= 2 {
			return z.writeLevel(ops[len(ops)-1], text), true
		}
		return z.unknown("`ln` without a link name"), true
	case "install", "rsync", "scp", "chown", "chgrp", "setfacl", "chattr":
		if t := targetDir(args); t != "" {
			z.write(t, text)
		} else if len(ops) >= 2 && !ops[len(ops)-1].dynamic {
			z.write(ops[len(ops)-1].val, text)
		}
		return z.unknown("`" + lname + "` is not a known-safe command"), true
	case "sed", "gsed", "perl":
		if lname == "perl" || !hasInPlace(args) {
			return 0, false
		}
		script, files, why := sedArgs(args, words)
		if why != "" {
			return z.unknown("`sed " + why + "`"), true
		}
		if bad := sedScriptUnsafe(script); bad != "" {
			return z.unknown("`sed` script " + bad), true
		}
		lvl := LevelLocal
		for _, f := range files {
			lvl = max(lvl, z.writeLevel(f, text))
		}
		return lvl, true
	case "gofmt":
		if !hasFlag(args, "w", "") {
			return LevelReadOnly, true
		}
		lvl := LevelLocal
		for _, o := range ops {
			lvl = max(lvl, z.writeLevel(o, text))
		}
		return lvl, true
	}
	return 0, false
}

// chmodLevel: a mode change (already screened for sweeping or setuid modes)
// on project files is local work.
func (z *analyser) chmodLevel(words []word, text string) Level {
	ops := operands(words[1:])
	if len(ops) < 2 {
		return z.unknown("`chmod` without a target")
	}
	lvl := LevelLocal
	for _, o := range ops[1:] {
		lvl = max(lvl, z.writeLevel(o, text))
	}
	return lvl
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
