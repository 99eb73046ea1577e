package shellparse

import (
	"strings"
)

func setOf(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}

// plain judges a command that is not a wrapper or shell: known dangers
// first (with their specific reasons), then the allowlist.
func (z *analyser) plain(name, lname string, words []word, args []string, text string) Level {
	if strings.HasPrefix(lname, "mkfs.") || strings.HasPrefix(lname, "mkfs_") {
		lname = "mkfs"
	}
	if serviceQuery(lname, args) {
		return LevelReadOnly
	}
	if lvl, ok := z.moreDangers(name, lname, words, args, text); ok {
		return lvl
	}
	if lvl, ok := z.dangerous(name, lname, words, args, text); ok {
		return lvl
	}
	if lname == "git" {
		return z.git(args, text)
	}
	if lvl, ok := z.writing(lname, words, args, text); ok {
		return lvl
	}
	if lvl, ok := z.archive(lname, words, args, text); ok {
		return lvl
	}
	if lvl, ok := z.known(name, lname, words, args); ok {
		return lvl
	}
	return z.unknown("`" + name + "` is not a known-safe command")
}

// dangerous recognises the classic danger classes. It reports whether it
// judged the command.
func (z *analyser) dangerous(name, lname string, words []word, args []string, text string) (Level, bool) {
	no := func() (Level, bool) { return z.unknown("`" + name + "` is not a known-safe command"), true }
	switch lname {
	case "rm", "unlink", "shred", "srm", "wipe", "del", "erase", "rd", "rmdir", "remove-item", "ri", "rmtree":
		z.deletion(lname, words, args, text)
		return LevelUnknown, true
	case "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				z.write(v, text)
			}
		}
		return no()
	case "kill", "killall", "pkill", "skill", "xkill", "taskkill", "stop-process", "spps", "tskill":
		z.danger(ClassKill, text, name+" stops processes")
		return no()
	case "fuser":
		if hasFlag(args, "k", "--kill") {
			z.danger(ClassKill, text, "fuser -k stops processes")
		}
		return no()
	case "shutdown", "reboot", "halt", "poweroff", "stop-computer", "restart-computer", "pm-suspend", "pm-hibernate", "suspend":
		z.danger(ClassPower, text, name+" changes the machine's power state")
		return no()
	case "init", "telinit":
		z.danger(ClassPower, text, name+" changes the run level")
		return no()
	case "systemctl", "loginctl", "service", "launchctl", "rc-service":
		for _, a := range args {
			switch a {
			case "poweroff", "reboot", "halt", "suspend", "hibernate", "hybrid-sleep", "kexec", "emergency", "rescue", "soft-reboot":
				z.danger(ClassPower, text, name+" "+a+" changes the machine's power state")
				return no()
			case "stop", "kill", "disable", "mask", "restart", "isolate", "unload", "bootout", "remove", "terminate-session", "kill-session", "kill-user":
				z.danger(ClassSystemConfig, text, name+" "+a+" changes system services")
				return no()
			}
		}
		return no()
	case "mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "wipefs", "hdparm",
		"blkdiscard", "diskpart", "format", "format-volume", "clear-disk", "initialize-disk", "cryptsetup",
		"lvremove", "vgremove", "pvremove", "mdadm", "zpool", "newfs", "diskutil", "bcdedit", "cipher", "fsutil":
		if lname == "zpool" && !hasAnyArg(args, "destroy", "create", "labelclear") || lname == "diskutil" && !hasAnyArgPrefix(args, "erase", "partition", "zero", "randomDisk", "secureErase", "unmount") || lname == "cipher" && !winFlag(args, "w") {
			return no()
		}
		z.danger(ClassDisk, text, name+" writes disks or partitions")
		return no()
	case "chmod", "chown", "chgrp", "icacls", "cacls", "takeown", "setfacl", "chattr":
		before := len(z.a.Dangers)
		z.permissions(lname, args, text)
		if lname == "chmod" && len(z.a.Dangers) == before {
			return z.chmodLevel(words, text), true
		}
		return no()
	case "crontab":
		if hasFlag(args, "r", "--remove") || len(operands(words[1:])) > 0 {
			z.danger(ClassPersistence, text, "crontab replaces or removes scheduled jobs")
		}
		return no()
	case "iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "pfctl", "sysctl", "modprobe", "insmod", "rmmod",
		"useradd", "userdel", "usermod", "passwd", "chpasswd", "visudo", "groupdel", "reg", "setx", "netsh",
		"vssadmin", "wevtutil", "bootrec", "update-grub", "grub-install", "mount", "umount", "swapoff", "swapon":
		if (lname == "sysctl" && !hasFlag(args, "w", "--write")) || (lname == "reg" && !hasAnyArgFold(args, "delete", "add", "import")) ||
			(lname == "mount" && len(args) == 0) || (lname == "ufw" && hasAnyArg(args, "status")) || (lname == "netsh" && !hasAnyArgFold(args, "set", "delete", "add", "reset")) {
			return no()
		}
		z.danger(ClassSystemConfig, text, name+" changes system configuration")
		return no()
	case "nc", "ncat", "netcat", "socat":
		if hasFlag(args, "e", "--exec", "--sh-exec") || hasAnyArgPrefix(args, "EXEC:", "SYSTEM:") {
			z.danger(ClassRCE, text, name+" hands a shell to the network")
		}
		return no()
	case "docker", "podman":
		if hasFlag(args, "", "--privileged") || hasAnyArgPrefix(args, "/:/", "--volume=/:/", "-v=/:/") {
			z.danger(ClassPrivilege, text, name+" gives a container the host")
		}
		if hasAnyArg(args, "rm", "rmi", "prune") && hasFlag(args, "f", "--force", "--all") {
			z.danger(ClassRecursiveDel, text, name+" forcibly removes containers or images")
		}
		return no()
	case "setcap":
		z.danger(ClassPrivilege, text, "setcap grants capabilities")
		return no()
	case "history":
		if hasFlag(args, "cd", "") {
			z.danger(ClassHistoryWipe, text, "history "+strings.Join(args, " ")+" erases the shell history")
			return LevelUnknown, true
		}
		for _, a := range args {
			if !isDigits(a) {
				return z.unknown("`history " + a + "` changes the history file"), true
			}
		}
		return LevelReadOnly, true
	case "curl", "wget":
		for i, a := range args {
			if (a == "-o" || a == "--output" || a == "-O" && lname == "wget" || a == "--output-document") && i+1 < len(args) && !words[i+2].dynamic && args[i+1] != "-" {
				z.write(args[i+1], text)
			}
		}
		z.danger(ClassNetwork, text, "`"+name+"` is not a known-safe command: it talks to the network, so data could leave the machine")
		return LevelUnknown, true
	case "alias":
		lvl := LevelReadOnly
		for _, w := range words[1:] {
			if _, val, ok := strings.Cut(w.val, "="); ok && !w.dynamic {
				lvl = max(lvl, z.source(val, 1, true))
			}
		}
		return lvl, true
	case "command":
		if hasFlag(args, "vV", "") {
			return LevelReadOnly, true
		}
		return no()
	}
	return LevelReadOnly, false
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

// gitReadOnly are git subcommands that only read, given vetted arguments.
var gitReadOnly = setOf("status", "log", "diff", "show", "blame", "grep", "rev-parse", "rev-list", "ls-files",
	"ls-tree", "cat-file", "describe", "shortlog", "whatchanged", "merge-base", "name-rev", "for-each-ref",
	"show-ref", "count-objects", "check-ignore", "check-attr", "version", "diff-tree", "diff-files",
	"diff-index", "var", "cherry", "annotate", "show-branch", "verify-commit", "verify-tag", "range-diff")

// gitGlobal reports whether a git global option is known to be harmless and
// whether it consumes the next argument.
func gitGlobal(a string) (ok, consumes bool) {
	switch a {
	case "-C", "--git-dir", "--work-tree", "--namespace":
		return true, true
	case "-P", "--no-pager", "--bare", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs",
		"--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--version", "--help", "-h":
		return true, false
	}
	for _, p := range []string{"--git-dir=", "--work-tree=", "--namespace="} {
		if strings.HasPrefix(a, p) {
			return true, false
		}
	}
	return false, false
}

// GitSubcommand returns the index of git's subcommand in args (after the
// global options), or len(args).
func GitSubcommand(args []string) int {
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "-c" || a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env" {
			i += 2
			continue
		}
		if strings.HasPrefix(a, "-") {
			i++
			continue
		}
		break
	}
	return min(i, len(args))
}

// git judges a git invocation: global options first (only harmless ones
// keep it known-safe), then the subcommand.
func (z *analyser) git(args []string, text string) Level {
	lvl := LevelReadOnly
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "-c" || strings.HasPrefix(a, "--config-env") {
			if a == "-c" && i+1 < len(args) {
				key := strings.ToLower(strings.SplitN(args[i+1], "=", 2)[0])
				if strings.HasPrefix(key, "alias.") || key == "core.hookspath" || key == "core.sshcommand" ||
					key == "core.pager" || key == "core.fsmonitor" || key == "core.editor" || strings.HasSuffix(key, ".helper") ||
					strings.HasPrefix(key, "diff.") || strings.HasPrefix(key, "filter.") || strings.HasSuffix(key, ".textconv") ||
					strings.HasSuffix(key, ".command") || strings.HasPrefix(key, "pager.") {
					z.danger(ClassOpaque, text, "git -c "+key+" runs a configured program")
				}
			}
			lvl = max(lvl, z.unknown("`git "+a+"` overrides configuration, which can make git run other programs"))
			i += 2
			continue
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		ok, consumes := gitGlobal(a)
		if !ok {
			lvl = max(lvl, z.unknown("`git "+a+"` is not a known-safe git option"))
		}
		dir := ""
		if consumes && i+1 < len(args) {
			dir = args[i+1]
		} else if _, v, found := strings.Cut(a, "="); found && strings.HasPrefix(a, "--") {
			dir = v
		}
		if dir != "" && a != "--namespace" && !strings.HasPrefix(a, "--namespace") && !z.scratch(z.resolve(dir)) {
			lvl = max(lvl, z.unknown("`git "+a+" "+dir+"` uses a repository outside the project, whose configuration can run programs"))
		}
		i++
		if consumes {
			i++
		}
	}
	if z.opts.Root != "" && !z.scratch(z.cwd) {
		lvl = max(lvl, z.unknown("`git` runs in "+z.cwd+", outside the project, where a repository's configuration can run programs"))
	}
	if i >= len(args) {
		return lvl
	}
	sub, rest := args[i], args[i+1:]
	if why := gitRepoRisk(z.opts.Root, sub); why != "" {
		lvl = max(lvl, z.unknown("`git "+sub+"`: "+why))
	}
	destructive := func(why string) Level {
		z.danger(ClassGit, text, "git "+sub+": "+why)
		return LevelUnknown
	}
	notSafe := func(why string) Level {
		return z.unknown("`git " + sub + "` " + why)
	}
	// Options that run programs or write files, whatever the subcommand.
	for _, r := range rest {
		if r == "--" {
			break
		}
		switch {
		case r == "--output" || strings.HasPrefix(r, "--output="):
			return max(lvl, notSafe("--output writes a file"))
		case r == "--ext-diff" || r == "--open-files-in-pager" || strings.HasPrefix(r, "--open-files-in-pager=") ||
			sub == "grep" && strings.HasPrefix(r, "-O") || r == "--exec" || strings.HasPrefix(r, "--exec=") ||
			strings.HasPrefix(r, "--upload-pack") || strings.HasPrefix(r, "--receive-pack") || strings.HasPrefix(r, "--tool"):
			return max(lvl, notSafe(r+" runs another program"))
		}
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
		z.danger(ClassPublish, text, "git push publishes commits to a remote")
		return LevelUnknown
	case "reset":
		if hasFlag(rest, "", "--hard", "--merge", "--keep") {
			return destructive("discards uncommitted work")
		}
		return notSafe("moves the branch head")
	case "clean":
		if hasFlag(rest, "n", "--dry-run") && !hasFlag(rest, "f", "--force") {
			return lvl
		}
		if hasFlag(rest, "fx", "--force") {
			return destructive("deletes untracked files")
		}
		return notSafe("deletes untracked files")
	case "branch":
		if hasFlag(rest, "DM", "") || hasFlag(rest, "d", "--delete") && hasFlag(rest, "f", "--force") {
			return destructive("force-deletes or overwrites branches")
		}
		if hasFlag(rest, "d", "--delete") {
			return notSafe("-d deletes a branch")
		}
		if hasFlag(rest, "C", "--force", "-f") {
			return notSafe("--force overwrites a branch")
		}
		if hasFlag(rest, "u", "--set-upstream-to", "--unset-upstream", "--edit-description") {
			return max(lvl, LevelLocal)
		}
		if hasFlag(rest, "mc", "--move", "--copy") || len(operands(wordsOf(branchOperands(rest)))) > 0 {
			return max(lvl, LevelLocal)
		}
		return lvl
	case "checkout":
		if hasFlag(rest, "f", "--force", "--discard-changes") || hasAnyArg(rest, "--", ".") {
			return destructive("discards local changes")
		}
		if len(rest) == 2 && rest[0] == "-b" || len(rest) == 3 && rest[0] == "-b" {
			return max(lvl, LevelLocal)
		}

		return notSafe("can overwrite local changes (use `git switch` to change branches)")
	case "switch":
		if hasFlag(rest, "f", "--force", "--discard-changes") {
			return destructive("discards local changes")
		}
		if hasFlag(rest, "C", "--force-create", "--orphan") {
			return notSafe("resets or orphans a branch")
		}
		return max(lvl, LevelLocal)
	case "restore":
		if !hasFlag(rest, "S", "--staged") || hasFlag(rest, "W", "--worktree") {
			return destructive("discards local changes")
		}
		return max(lvl, LevelLocal)
	case "stash":
		if hasAnyArg(rest, "drop", "clear") {
			return destructive("deletes stashed work")
		}
		if len(rest) > 0 && hasAnyArg(rest[:1], "list", "show") {
			return lvl
		}
		if len(rest) == 0 || hasAnyArg(rest[:1], "push", "save", "-m", "--message", "-u", "--include-untracked", "--keep-index", "-k") {
			return max(lvl, LevelLocal)
		}
		return notSafe(rest[0] + " changes the working tree")
	case "reflog":
		if hasAnyArg(rest, "expire", "delete") {
			return destructive("deletes history")
		}
		return lvl
	case "gc", "prune":
		if sub == "prune" || hasAnyArgPrefix(rest, "--prune") {
			return destructive("deletes unreachable objects")
		}
		return notSafe("rewrites the object store")
	case "filter-branch", "filter-repo":
		return destructive("rewrites history")
	case "update-ref":
		if hasFlag(rest, "d", "") {
			return destructive("deletes a ref")
		}
		return notSafe("moves a ref")
	case "rm":
		if !hasFlag(rest, "", "--cached") {
			z.danger(ClassDelete, text, "git rm deletes files")
			return LevelUnknown
		}
		return max(lvl, LevelLocal)
	case "worktree":
		if hasAnyArg(rest, "remove", "prune") && hasFlag(rest, "f", "--force") {
			return destructive("deletes a worktree with its changes")
		}
		if len(rest) > 0 && rest[0] == "list" {
			return lvl
		}
		return notSafe("changes worktrees")
	case "tag":
		if len(rest) == 0 || hasFlag(rest, "l", "--list") || hasAnyArg(rest, "--contains", "--points-at") {
			return lvl
		}
		if hasFlag(rest, "df", "--delete", "--force") {
			return notSafe("deletes or moves a tag")
		}
		return max(lvl, LevelLocal)
	case "remote":
		if len(rest) == 0 || hasAnyArg(rest[:1], "-v", "--verbose", "get-url") {
			return lvl
		}
		return notSafe("changes or contacts remotes")
	case "config":
		if z.gitConfigWrite(rest, text) {
			return notSafe("changes git configuration")
		}
		return lvl
	case "submodule":
		if len(rest) > 0 && rest[0] == "status" {
			return lvl
		}
		return notSafe("fetches or changes submodules")
	case "init":
		for _, o := range operands(wordsOf(rest)) {
			lvl = max(lvl, z.writeLevel(o, text))
		}
		return max(lvl, LevelLocal)
	case "add", "commit", "mv":
		return max(lvl, LevelLocal)
	case "apply":
		if hasFlag(rest, "", "--directory", "--unsafe-paths") {
			return notSafe("writes outside the working tree")
		}
		if hasFlag(rest, "", "--check", "--stat", "--numstat", "--summary") && !hasFlag(rest, "", "--apply") {
			return lvl
		}
		return max(lvl, LevelLocal)
	case "fsck":
		if hasFlag(rest, "", "--lost-found") {
			return notSafe("--lost-found writes files")
		}
		return lvl
	case "help":
		if hasFlag(rest, "wi", "--web", "--info") {
			return notSafe("opens a browser or viewer")
		}
		return lvl
	}
	if gitReadOnly[sub] {
		return lvl
	}
	return max(lvl, z.unknown("`git "+sub+"` is not a known-safe git command"))
}

// branchOperands drops the values of git branch options that take one.
func branchOperands(rest []string) []string {
	var out []string
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format", "--color", "--column":
			i++
			continue
		}
		if strings.HasPrefix(rest[i], "-") {
			continue
		}
		out = append(out, rest[i])
	}
	return out
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
