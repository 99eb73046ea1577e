package shellparse

import "strings"

// archive judges tar, zip and the compressors: listing is read-only,
// creating or extracting inside the project is local work, options that
// run programs or write absolute paths are unknown.
func (z *analyser) archive(lname string, words []word, args []string, text string) (Level, bool) {
	switch lname {
	case "tar", "bsdtar", "gtar":
	case "unzip", "zip", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "7z":
	default:
		return 0, false
	}
	for _, a := range args {
		for _, p := range []string{"-P", "--absolute-names", "--to-command", "--use-compress-program", "-I", "--checkpoint-action",
			"--rsh-command", "--rmt-command", "--info-script", "-F", "--new-volume-script", "-TT", "--unzip-command", "--index-file"} {
			if a == p || strings.HasPrefix(a, p+"=") {
				return z.unknown("`" + lname + " " + a + "` runs another program or writes outside the project"), true
			}
		}
	}
	ops := operands(words[1:])
	switch lname {
	case "tar", "bsdtar", "gtar":
		if len(args) == 0 {
			return z.unknown("`tar` without a mode"), true
		}
		mode := strings.TrimPrefix(args[0], "-")
		if strings.HasPrefix(args[0], "--") {
			mode = ""
		}
		var archive, dir string
		for i, a := range args {
			switch {
			case a == "-f" || a == "--file":
				if i+1 < len(args) {
					archive = args[i+1]
				}
			case strings.HasPrefix(a, "--file="):
				archive = strings.TrimPrefix(a, "--file=")
			case a == "-C" || a == "--directory":
				if i+1 < len(args) {
					dir = args[i+1]
				}
			case strings.HasPrefix(a, "--directory="):
				dir = strings.TrimPrefix(a, "--directory=")
			case i == 0 && strings.HasSuffix(mode, "f") && i+1 < len(args):
				archive = args[i+1]
			case a == "--create":
				mode += "c"
			case a == "--extract" || a == "--get":
				mode += "x"
			case a == "--list":
				mode += "t"
			}
		}
		if strings.Contains(archive, ":") && !strings.Contains(archive, `:\`) {
			return z.unknown("`tar -f " + archive + "` reaches another host"), true
		}
		switch {
		case strings.ContainsAny(mode, "t") && !strings.ContainsAny(mode, "cxru"):
			return LevelReadOnly, true
		case strings.ContainsAny(mode, "cru"):
			if archive == "" || archive == "-" {
				return LevelReadOnly, true
			}
			return z.writeLevel(word{val: archive}, text), true
		case strings.ContainsAny(mode, "x"):
			if dir == "" {
				dir = "."
			}
			return z.writeLevel(word{val: dir}, text), true
		}
		return z.unknown("`tar " + args[0] + "` is not a known-safe tar mode"), true
	case "unzip":
		if hasFlag(args, "lZtv", "") {
			return LevelReadOnly, true
		}
		dir := "."
		for i, a := range args {
			if a == "-d" && i+1 < len(args) {
				dir = args[i+1]
			}
		}
		return z.writeLevel(word{val: dir}, text), true
	case "zip", "7z":
		if len(ops) == 0 {
			return z.unknown("`" + lname + "` without an archive"), true
		}
		i := 0
		if lname == "7z" {
			if len(ops) < 2 || ops[0].val != "a" && ops[0].val != "l" && ops[0].val != "x" && ops[0].val != "t" {
				return z.unknown("`7z` is not a known-safe command"), true
			}
			if ops[0].val == "l" || ops[0].val == "t" {
				return LevelReadOnly, true
			}
			if ops[0].val == "x" {
				dir := "."
				for _, a := range args {
					if v, ok := strings.CutPrefix(a, "-o"); ok && v != "" {
						dir = v
					}
				}
				return z.writeLevel(word{val: dir}, text), true
			}
			i = 1
		}
		return z.writeLevel(ops[i], text), true
	default:
		if hasFlag(args, "cltk", "--stdout", "--to-stdout", "--list", "--test", "--keep") && !hasFlag(args, "", "--force") {
			if hasFlag(args, "c", "--stdout", "--to-stdout") || hasFlag(args, "lt", "--list", "--test") {
				return LevelReadOnly, true
			}
		}
		lvl := LevelLocal
		for _, o := range ops {
			lvl = max(lvl, z.writeLevel(o, text))
		}
		return lvl, true
	}
}

// services judges read-only queries of tools whose other subcommands change
// the system or a cluster (systemctl status, docker ps, kubectl get…).
func serviceQuery(lname string, args []string) bool {
	sub := ""
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			sub = a
			break
		}
	}
	switch lname {
	case "systemctl":
		return hasAnyArg([]string{sub}, "status", "list-units", "list-unit-files", "is-active", "is-enabled", "is-failed", "show", "cat", "list-timers")
	case "docker", "podman":
		return hasAnyArg([]string{sub}, "ps", "images", "logs", "inspect", "version", "info", "stats", "top", "port", "diff", "history") && !hasFlag(args, "", "--output")
	case "kubectl", "oc":
		return hasAnyArg([]string{sub}, "get", "describe", "logs", "version", "explain", "api-resources", "api-versions", "top", "cluster-info") || sub == "config" && hasAnyArg(args, "view", "get-contexts", "current-context")
	case "helm":
		return hasAnyArg([]string{sub}, "list", "ls", "status", "version", "show", "get", "history", "template", "lint")
	case "ssh-keygen":
		return hasFlag(args, "l", "") && !hasFlag(args, "tbNpRyfF", "") || len(args) == 3 && args[0] == "-l" && args[1] == "-f"
	case "terraform", "tofu":
		return hasAnyArg([]string{sub}, "version", "--version")
	}
	return false
}
