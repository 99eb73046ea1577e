package shellparse

import (
	"strings"
)

// readOnlyCommands never change anything (given no output redirection).
var readOnlyCommands = setOf(
	"ls", "ll", "dir", "cat", "head", "tail", "less", "more", "wc", "grep", "egrep", "fgrep", "rg", "ag", "ack",
	"pwd", "echo", "printf", "which", "whereis", "type", "file", "stat", "du", "df", "tree", "uniq", "cut",
	"tr", "diff", "cmp", "comm", "date", "whoami", "id", "uname", "hostname", "printenv", "basename",
	"dirname", "realpath", "readlink", "true", "false", "test", "[", "[[", "jq", "column", "nl", "fold",
	"fmt", "expand", "unexpand", "rev", "tac", "od", "hexdump", "xxd", "strings", "md5sum", "sha1sum",
	"sha256sum", "sha512sum", "shasum", "cksum", "b2sum", "base64", "seq", "sleep", "locale", "nproc",
	"free", "uptime", "ps", "pgrep", "lsof", "ss", "history", ":", "popd", "dirs", "man", "fd", "fdfind",
	"bat", "batcat", "eza", "exa", "tokei", "cloc", "getconf", "groups", "users", "who", "w", "last",
	"arch", "lscpu", "lsblk", "nvidia-smi", "sort", "sed", "gofmt", "yq", "awk", "gawk", "mawk", "env",
	"export", "set", "unset", "shopt", "alias", "hash", "read", "wait", "jobs", "look", "join", "paste",
	"numfmt", "tsort", "zcat", "zgrep", "zless", "bzcat", "xzcat", "iconv", "cal", "tput", "stty", "ldd",
	"nm", "objdump", "readelf", "size", "go", "git", "npm", "cargo", "node", "python", "python3",
)

// conditionalReadOnly lists commands from readOnlyCommands whose read-only
// status depends on their arguments; plain() checks them.
var conditionalReadOnly = setOf("sort", "sed", "gofmt", "yq", "awk", "gawk", "mawk", "go", "git", "npm", "cargo", "node", "python", "python3", "env", "tail")

func setOf(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}

// plain judges a command that is not a wrapper or shell.
func (z *analyser) plain(name, lname string, words []word, args []string, text string) bool {
	if strings.HasPrefix(lname, "mkfs.") || strings.HasPrefix(lname, "mkfs_") {
		lname = "mkfs"
	}
	wrote := z.writeTargets(lname, words, args, text)
	switch lname {
	case "rm", "unlink", "shred", "srm", "wipe", "del", "erase", "rd", "rmdir", "remove-item", "ri", "rmtree":
		z.deletion(lname, words, args, text)
		return false
	case "git":
		return z.git(args, text)
	case "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				z.write(v, text)
			}
		}
		return false
	case "kill", "killall", "pkill", "skill", "xkill", "taskkill", "stop-process", "spps", "tskill":
		z.danger(ClassKill, text, name+" stops processes")
		return false
	case "fuser":
		if hasFlag(args, "k", "--kill") {
			z.danger(ClassKill, text, "fuser -k stops processes")
		}
		return false
	case "shutdown", "reboot", "halt", "poweroff", "stop-computer", "restart-computer", "pm-suspend", "pm-hibernate", "suspend":
		z.danger(ClassPower, text, name+" changes the machine's power state")
		return false
	case "init", "telinit":
		z.danger(ClassPower, text, name+" changes the run level")
		return false
	case "systemctl", "loginctl", "service", "launchctl", "rc-service":
		for _, a := range args {
			switch a {
			case "poweroff", "reboot", "halt", "suspend", "hibernate", "hybrid-sleep", "kexec", "emergency", "rescue", "soft-reboot":
				z.danger(ClassPower, text, name+" "+a+" changes the machine's power state")
				return false
			case "stop", "kill", "disable", "mask", "restart", "isolate", "unload", "bootout", "remove", "terminate-session", "kill-session", "kill-user":
				z.danger(ClassSystemConfig, text, name+" "+a+" changes system services")
				return false
			}
		}
		return false
	case "mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "wipefs", "hdparm",
		"blkdiscard", "diskpart", "format", "format-volume", "clear-disk", "initialize-disk", "cryptsetup",
		"lvremove", "vgremove", "pvremove", "mdadm", "zpool", "newfs", "diskutil", "bcdedit", "cipher", "fsutil":
		if lname == "zpool" && !hasAnyArg(args, "destroy", "create", "labelclear") || lname == "diskutil" && !hasAnyArgPrefix(args, "erase", "partition", "zero", "randomDisk", "secureErase", "unmount") || lname == "cipher" && !winFlag(args, "w") {
			return false
		}
		z.danger(ClassDisk, text, name+" writes disks or partitions")
		return false
	case "chmod", "chown", "chgrp", "icacls", "cacls", "takeown", "setfacl", "chattr":
		z.permissions(lname, args, text)
		return false
	case "crontab":
		if hasFlag(args, "r", "--remove") || len(operands(words[1:])) > 0 {
			z.danger(ClassSystemConfig, text, "crontab replaces or removes scheduled jobs")
		}
		return false
	case "iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "pfctl", "sysctl", "modprobe", "insmod", "rmmod",
		"useradd", "userdel", "usermod", "passwd", "chpasswd", "visudo", "groupdel", "reg", "setx", "netsh",
		"vssadmin", "wevtutil", "bootrec", "update-grub", "grub-install", "mount", "umount", "swapoff", "swapon":
		if (lname == "sysctl" && !hasFlag(args, "w", "--write")) || (lname == "reg" && !hasAnyArgFold(args, "delete", "add", "import")) ||
			(lname == "mount" && len(args) == 0) || (lname == "ufw" && hasAnyArg(args, "status")) || (lname == "netsh" && !hasAnyArgFold(args, "set", "delete", "add", "reset")) {
			return false
		}
		z.danger(ClassSystemConfig, text, name+" changes system configuration")
		return false
	case "nc", "ncat", "netcat", "socat":
		if hasFlag(args, "e", "--exec", "--sh-exec") || hasAnyArgPrefix(args, "EXEC:", "SYSTEM:") {
			z.danger(ClassRCE, text, name+" hands a shell to the network")
		}
		return false
	case "docker", "podman":
		if hasFlag(args, "", "--privileged") || hasAnyArgPrefix(args, "/:/", "--volume=/:/", "-v=/:/") {
			z.danger(ClassPrivilege, text, name+" gives a container the host")
		}
		if hasAnyArg(args, "rm", "rmi", "prune") && hasFlag(args, "f", "--force", "--all") {
			z.danger(ClassRecursiveDel, text, name+" forcibly removes containers or images")
		}
		return false
	case "setcap":
		z.danger(ClassPrivilege, text, "setcap grants capabilities")
		return false
	case "history":
		if hasFlag(args, "c", "") {
			return false
		}
	case "truncate":
		return false
	case "curl", "wget":
		for i, a := range args {
			if (a == "-o" || a == "--output" || a == "-O" && lname == "wget" || a == "--output-document") && i+1 < len(args) && !words[i+2].dynamic && args[i+1] != "-" {
				z.write(args[i+1], text)
			}
		}
		return false
	case "alias":
		for _, w := range words[1:] {
			if _, val, ok := strings.Cut(w.val, "="); ok && !w.dynamic {
				z.source(val, 1, true)
			}
		}
		return true
	case "command":
		return hasFlag(args, "vV", "")
	}
	if wrote {
		return false
	}
	if !readOnlyCommands[lname] {
		return false
	}
	if !conditionalReadOnly[lname] {
		return true
	}
	switch lname {
	case "sort":
		return !hasFlag(args, "o", "--output")
	case "sed":
		return !hasFlag(args, "i", "--in-place") && !strings.Contains(strings.Join(args, " "), "w ")
	case "gofmt":
		return !hasFlag(args, "w", "")
	case "yq":
		return !hasFlag(args, "i", "--inplace")
	case "awk", "gawk", "mawk":
		prog := strings.Join(args, " ")
		return !strings.Contains(prog, "system(") && !strings.Contains(prog, ">") && !strings.Contains(prog, "|")
	case "tail":
		return true
	case "env":
		return len(args) == 0
	case "go":
		return len(args) > 0 && hasAnyArg(args[:1], "vet", "version", "list", "doc", "help") ||
			len(args) > 0 && args[0] == "env" && !hasFlag(args, "", "-w", "-u")
	case "npm":
		return len(args) > 0 && hasAnyArg(args[:1], "ls", "list", "view", "info", "outdated", "help", "--version", "-v")
	case "cargo":
		return len(args) > 0 && hasAnyArg(args[:1], "tree", "metadata", "--version", "-V")
	case "node", "python", "python3":
		return len(args) == 1 && (args[0] == "--version" || args[0] == "-V" || args[0] == "-v")
	}
	return false
}

// deletion judges rm and its relatives, including Windows ones.
func (z *analyser) deletion(lname string, words []word, args []string, text string) {
	recursive := false
	switch lname {
	case "rm":
		recursive = hasFlag(args, "rRf", "--recursive", "--force", "--no-preserve-root") || psFlag(args, "Recurse", 3) || psFlag(args, "Force", 2)
	case "del", "erase", "rd", "rmdir":
		recursive = winFlag(args, "s", "q")
	case "remove-item", "ri":
		recursive = psFlag(args, "Recurse", 1) || psFlag(args, "Force", 1)
	}
	class := ClassDelete
	if recursive {
		class = ClassRecursiveDel
	}
	var targets []word
	for _, w := range operands(words[1:]) {
		if strings.HasPrefix(w.val, "/") && len(w.val) == 2 && (lname == "del" || lname == "erase" || lname == "rd" || lname == "rmdir") {
			continue // a Windows switch such as /s
		}
		targets = append(targets, w)
	}
	shown := make([]string, 0, len(targets))
	for _, t := range targets {
		shown = append(shown, t.val)
	}
	z.danger(class, text, lname+" removes "+strings.Join(shown, " "))
	for _, t := range targets {
		if isWindowsAbs(t.val) {
			z.a.OutsideDeletes = append(z.a.OutsideDeletes, t.val)
			z.danger(ClassOutsideDelete, text, "deletes "+t.val+" (outside the project)")
			continue
		}
		if strings.HasPrefix(t.val, "/dev/") && lname == "shred" {
			z.danger(ClassDisk, text, "shred overwrites a device")
		}
		z.deleteTarget(t, text)
	}
}

func isWindowsAbs(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') || strings.HasPrefix(p, `\\`)
}

// permissions judges chmod/chown and Windows ACL tools.
func (z *analyser) permissions(lname string, args []string, text string) {
	switch lname {
	case "chmod":
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			m := a
			if m == "777" || m == "0777" || m == "666" || m == "0666" || strings.Contains(m, "o+w") || strings.Contains(m, "a+w") ||
				strings.Contains(m, "a+rwx") || strings.Contains(m, "ugo+rwx") || strings.Contains(m, "=rwx") && !strings.Contains(m, "u=") {
				z.danger(ClassPermSweep, text, "makes files writable by everyone")
			}
			if strings.Contains(m, "+s") || len(m) == 4 && (m[0] == '4' || m[0] == '2' || m[0] == '6') && isDigits(m) {
				z.danger(ClassPrivilege, text, "sets the setuid/setgid bit")
			}
			break
		}
		if hasFlag(args, "R", "--recursive") {
			z.danger(ClassPermSweep, text, "chmod -R changes permissions of whole trees")
		}
	case "chown", "chgrp", "setfacl", "chattr":
		if hasFlag(args, "R", "--recursive") {
			z.danger(ClassPermSweep, text, lname+" -R changes ownership of whole trees")
		}
	case "icacls", "cacls", "takeown":
		if winFlag(args, "t", "r") || hasAnyArgFold(args, "/grant", "everyone:f", "/reset") {
			z.danger(ClassPermSweep, text, lname+" changes permissions of whole trees")
		}
	}
}

// git judges a git invocation.
func (z *analyser) git(args []string, text string) bool {
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" {
			if a == "-c" && i+1 < len(args) {
				key := strings.ToLower(strings.SplitN(args[i+1], "=", 2)[0])
				if strings.HasPrefix(key, "alias.") || key == "core.hookspath" || key == "core.sshcommand" ||
					key == "core.pager" || key == "core.fsmonitor" || key == "core.editor" || strings.HasSuffix(key, ".helper") {
					z.danger(ClassOpaque, text, "git -c "+key+" runs a configured program")
				}
			}
			i += 2
			continue
		}
		if strings.HasPrefix(a, "-") {
			i++
			continue
		}
		break
	}
	if i >= len(args) {
		return true
	}
	sub, rest := args[i], args[i+1:]
	destructive := func(why string) bool {
		z.danger(ClassGit, text, "git "+sub+": "+why)
		return false
	}
	switch sub {
	case "push":
		if hasFlag(rest, "f", "--force", "--force-with-lease", "--mirror", "--delete", "--prune") || hasFlag(rest, "d", "") {
			return destructive("rewrites or deletes remote history")
		}
		for _, r := range rest {
			if strings.HasPrefix(r, "+") || strings.HasPrefix(r, ":") {
				return destructive("force-updates or deletes a remote ref (" + r + ")")
			}
		}
		return false
	case "reset":
		if hasFlag(rest, "", "--hard", "--merge", "--keep") {
			return destructive("discards uncommitted work")
		}
		return false
	case "clean":
		if hasFlag(rest, "fx", "--force") {
			return destructive("deletes untracked files")
		}
		return false
	case "branch":
		if hasFlag(rest, "DM", "") || hasFlag(rest, "d", "--delete") && hasFlag(rest, "f", "--force") {
			return destructive("force-deletes or overwrites branches")
		}
		return !hasFlag(rest, "dmcC", "--delete", "--move", "--copy", "--set-upstream-to", "--unset-upstream", "--edit-description") && len(operands(wordsOf(rest))) == 0
	case "checkout", "switch":
		if hasFlag(rest, "f", "--force", "--discard-changes") || hasAnyArg(rest, "--", ".") {
			return destructive("discards local changes")
		}
		return false
	case "restore":
		if !hasFlag(rest, "S", "--staged") || hasFlag(rest, "W", "--worktree") {
			return destructive("discards local changes")
		}
		return false
	case "stash":
		if hasAnyArg(rest, "drop", "clear") {
			return destructive("deletes stashed work")
		}
		return len(rest) > 0 && hasAnyArg(rest[:1], "list", "show")
	case "reflog":
		if hasAnyArg(rest, "expire", "delete") {
			return destructive("deletes history")
		}
		return true
	case "gc", "prune":
		if sub == "prune" || hasAnyArgPrefix(rest, "--prune") {
			return destructive("deletes unreachable objects")
		}
		return false
	case "filter-branch", "filter-repo":
		return destructive("rewrites history")
	case "update-ref":
		if hasFlag(rest, "d", "") {
			return destructive("deletes a ref")
		}
		return false
	case "rm":
		if !hasFlag(rest, "", "--cached") {
			z.danger(ClassDelete, text, "git rm deletes files")
		}
		return false
	case "worktree":
		if hasAnyArg(rest, "remove", "prune") && hasFlag(rest, "f", "--force") {
			return destructive("deletes a worktree with its changes")
		}
		return len(rest) > 0 && rest[0] == "list"
	case "tag":
		return len(rest) == 0 || hasFlag(rest, "l", "--list") || hasAnyArg(rest, "--contains", "--points-at")
	case "remote":
		return len(rest) == 0 || hasAnyArg(rest[:1], "-v", "--verbose", "show", "get-url")
	case "config":
		return !z.gitConfigWrite(rest, text)
	case "status", "log", "diff", "show", "blame", "grep", "rev-parse", "rev-list", "ls-files", "ls-tree",
		"ls-remote", "cat-file", "describe", "shortlog", "whatchanged", "merge-base", "name-rev",
		"for-each-ref", "show-ref", "count-objects", "check-ignore", "version", "help", "diff-tree",
		"diff-files", "diff-index", "var", "fsck", "cherry", "annotate", "show-branch", "verify-commit":
		return !hasFlag(rest, "", "--output")
	case "submodule":
		return len(rest) > 0 && rest[0] == "status"
	}
	return false
}

func wordsOf(args []string) []word {
	out := make([]word, len(args))
	for i, a := range args {
		out[i] = word{val: a}
	}
	return out
}

func hasAnyArg(args []string, vals ...string) bool {
	for _, a := range args {
		for _, v := range vals {
			if a == v {
				return true
			}
		}
	}
	return false
}

func hasAnyArgFold(args []string, vals ...string) bool {
	for _, a := range args {
		for _, v := range vals {
			if strings.EqualFold(a, v) {
				return true
			}
		}
	}
	return false
}

func hasAnyArgPrefix(args []string, prefixes ...string) bool {
	for _, a := range args {
		for _, p := range prefixes {
			if strings.HasPrefix(a, p) || strings.Contains(a, " "+p) {
				return true
			}
		}
	}
	return false
}
