package shellparse

import (
	"os"
	"path/filepath"
	"strings"
)

// resolve turns a path as written into an absolute, cleaned path with
// its symlinks resolved. Paths below the (already resolved) project root
// are walked from the root, and results are remembered for the analysis.
func (z *analyser) resolve(p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(z.cwd, p)
	}
	p = filepath.Clean(p)
	if r, ok := z.resolved[p]; ok {
		return r
	}
	var r string
	var err error
	if root := z.opts.Root; root != "" && within(p, root) {
		rel, _ := filepath.Rel(root, p)
		r, err = resolveFrom(root, rel)
	} else {
		r, err = resolvePath(p)
	}
	if err != nil {
		r = unresolvable
	}
	if z.resolved == nil {
		z.resolved = map[string]string{}
	}
	z.resolved[p] = r
	return r
}

// ResolvePath resolves symlinks along an absolute path, component by
// component, so a link inside the project that points outside it is judged
// by where it leads — also when the link dangles (its target does not exist
// yet) or only part of the path exists. A loop of links resolves to a path
// outside any project, so whatever asked fails closed.
func ResolvePath(p string) string {
	r, err := resolvePath(p)
	if err != nil {
		return unresolvable
	}
	return r
}

// unresolvable stands for a path whose links cannot be followed.
const unresolvable = "/(unresolvable symlink loop)"

func resolvePath(p string) (string, error) {
	p = filepath.Clean(p)
	vol := filepath.VolumeName(p)
	return resolveFrom(vol+string(filepath.Separator), strings.TrimPrefix(p[len(vol):], string(filepath.Separator)))
}

// resolveFrom resolves rel below base, a directory whose own path has no
// symlinks left.
func resolveFrom(base, rel string) (string, error) {
	rest := strings.Split(rel, string(filepath.Separator))
	cur := base
	hops := 0
	exists := true
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		if !exists {
			cur = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			exists = false // the rest cannot be links
			cur = next
			continue
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		hops++
		if hops > 40 {
			return "", os.ErrInvalid
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			tv := filepath.VolumeName(target)
			cur = tv + string(filepath.Separator)
			target = target[len(tv):]
		}
		parts := strings.Split(strings.Trim(target, string(filepath.Separator)), string(filepath.Separator))
		rest = append(parts, rest...)
	}
	return filepath.Clean(cur), nil
}

// globPrefix returns the part of a glob pattern before its first pattern
// character, cut back to a directory boundary.
func globPrefix(p string) string {
	i := strings.IndexAny(p, "*?[{")
	if i < 0 {
		return p
	}
	j := strings.LastIndex(p[:i], "/")
	if j < 0 {
		return "."
	}
	if j == 0 {
		return "/"
	}
	return p[:j]
}

// harmlessDevice reports whether writing to p has no lasting effect.
func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom", "NUL", "nul", "$null":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/dev/pts/")
}

var shellRCFiles = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc", ".mkshrc", ".inputrc",
	".config/fish", ".xprofile", ".xinitrc", ".config/autostart", ".config/environment.d",
	".config/systemd/user", ".local/bin",
}

var credentialPaths = []string{
	".ssh", ".aws", ".gnupg", ".netrc", ".git-credentials", ".gitconfig", ".config/git",
	".docker/config.json", ".kube", ".npmrc", ".pypirc", ".config/gh", ".config/gcloud", ".azure",
	".password-store", ".cargo/credentials", ".cargo/credentials.toml", ".terraformrc", ".vault-token",
}

// persistencePaths (under home) make something run later or change how
// package managers fetch and run code.
var persistencePaths = []string{
	"Library/LaunchAgents", ".config/pip", ".pip", ".yarnrc", ".yarnrc.yml", ".gemrc", ".cargo/config",
	".cargo/config.toml", ".m2/settings.xml", ".gradle/init.d", ".gradle/gradle.properties", ".bundle/config",
	".condarc", ".config/pnpm", ".bunfig.toml", ".local/share/systemd", ".config/direnv",
}

var systemDirs = []string{
	"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/sys", "/proc",
	"/var", "/opt", "/root", "/srv", "/System", "/Library", "/private/etc", "/private/var",
}

// ProtectedPath reports whether writing abs could change hew's own
// permissions, git's configuration or hooks, or shell start-up files —
// paths that must always ask, whatever the mode. It returns why.
func ProtectedPath(abs, root, home, hewHome string) (bool, string) {
	abs = filepath.Clean(abs)
	if root != "" {
		hew := filepath.Join(root, ".hew")
		if filepath.Dir(abs) == hew {
			base := filepath.Base(abs)
			if strings.HasPrefix(base, "settings") && strings.HasSuffix(base, ".json") {
				return true, "hew project settings"
			}
		}
		if abs == filepath.Join(root, ".git", "config") {
			return true, "git configuration"
		}
		if within(abs, filepath.Join(root, ".git", "hooks")) {
			return true, "git hooks"
		}
		if abs == filepath.Join(root, ".git") {
			return true, "git directory"
		}
	}
	if hewHome != "" && abs == filepath.Join(hewHome, "settings.json") {
		return true, "hew user settings"
	}
	if home != "" {
		for _, f := range shellRCFiles {
			if within(abs, filepath.Join(home, f)) {
				return true, "shell start-up file"
			}
		}
	}
	return false, ""
}

// sensitive classifies a resolved write target.
func (z *analyser) sensitive(abs string) (class, why string) {
	if ok, why := ProtectedPath(abs, z.opts.Root, z.opts.Home, z.opts.HewHome); ok {
		if why == "shell start-up file" {
			return ClassShellRC, why
		}
		return ClassProtected, why
	}
	if isNetDevice(abs) {
		return ClassNetwork, "network connection"
	}
	if strings.HasPrefix(abs, "/dev/") && !harmlessDevice(abs) {
		return ClassDisk, "device"
	}
	if z.historyFile(abs) {
		return ClassHistoryWipe, "shell history or system log"
	}
	if z.opts.Home != "" {
		for _, f := range persistencePaths {
			if within(abs, filepath.Join(z.opts.Home, f)) {
				return ClassPersistence, "runs later or configures a package manager"
			}
		}
	}
	if z.opts.Home != "" {
		for _, f := range credentialPaths {
			if within(abs, filepath.Join(z.opts.Home, f)) {
				return ClassCredential, "credentials or tool configuration"
			}
		}
	}
	for _, safe := range []string{z.opts.Root, z.opts.Home, os.TempDir(), "/tmp", "/var/tmp"} {
		if safe != "" && within(abs, safe) {
			return "", ""
		}
	}
	for _, d := range systemDirs {
		if within(abs, d) {
			return ClassSystemWrite, "system file"
		}
	}
	lower := strings.ToLower(abs)
	if strings.Contains(lower, `:\windows`) || strings.Contains(lower, `:/windows`) {
		return ClassSystemWrite, "system file"
	}
	return "", ""
}

// deleteTarget records a deletion target and flags it when it resolves
// outside the project, onto the project root itself, or cannot be resolved.
func (z *analyser) deleteTarget(w word, cmdText string) {
	if w.dynamic {
		z.a.OutsideDeletes = append(z.a.OutsideDeletes, w.val+" (unresolved)")
		z.danger(ClassOutsideDelete, cmdText, "target "+w.val+" cannot be resolved before running")
		return
	}
	p := w.val
	if w.glob {
		p = globPrefix(p)
	}
	abs := z.resolve(p)
	z.historyDelete(abs, cmdText)
	if z.opts.Root == "" {
		return
	}
	shown := abs
	if w.glob {
		shown = filepath.Join(abs, filepath.Base(w.val))
		if globPrefix(w.val) == w.val {
			shown = abs
		}
	}
	if !within(abs, z.opts.Root) || abs == z.opts.Root && !w.glob {
		z.a.OutsideDeletes = append(z.a.OutsideDeletes, shown)
		where := "outside the project"
		if abs == z.opts.Root {
			where = "the project root itself"
		}
		z.danger(ClassOutsideDelete, cmdText, "deletes "+shown+" ("+where+")")
		return
	}
	if ok, why := ProtectedPath(abs, z.opts.Root, z.opts.Home, z.opts.HewHome); ok {
		z.a.Protected = append(z.a.Protected, abs)
		z.danger(ClassProtected, cmdText, "deletes "+abs+" ("+why+")")
	}
}

// historyDelete flags deletions of shell history and logs.
func (z *analyser) historyDelete(abs, cmdText string) {
	if z.historyFile(abs) {
		z.danger(ClassHistoryWipe, cmdText, "deletes "+abs+" (shell history or system log)")
	}
}
