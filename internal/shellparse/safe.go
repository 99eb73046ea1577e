package shellparse

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// vetFunc checks a read-only program's arguments. It returns "" when they
// keep it read-only, or why they do not ("-o writes a file").
type vetFunc func(args []string, words []word) string

// anyArgs accepts every argument: the program has no option that writes,
// runs other programs or talks to the network.
func anyArgs([]string, []word) string { return "" }

// readOnly is the allowlist of read-only programs and their argument checks.
var readOnly = map[string]vetFunc{}

func init() {
	for _, n := range strings.Fields(`ls dir vdir cat head tail wc grep egrep fgrep zgrep pwd echo printf which
		whereis type stat du df cut tr diff diff3 cmp comm whoami id uname printenv basename dirname realpath
		readlink true false test [ [[ column nl fold fmt expand unexpand rev tac od hexdump strings md5sum
		sha1sum sha224sum sha256sum sha384sum sha512sum shasum cksum b2sum sum seq sleep locale nproc free
		uptime ps pgrep lsof ss netstat : popd dirs getconf groups users who w last arch lscpu lsblk look
		join paste numfmt tsort zcat bzcat xzcat cal nm objdump readelf size expr jobs wait read shopt set
		ulimit umask logname tty yes eza exa tokei jq shellcheck cd pushd clear tput
		get-childitem gci get-content gc select-string sls get-location get-item gi get-command gcm test-path
		resolve-path measure-object select-object where-object format-table format-list out-string
		write-output get-process findstr where ver`) {
		readOnly[n] = anyArgs
	}
	readOnly["sort"] = flagsOff("o", "--output", "--compress-program")
	readOnly["base64"] = flagsOff("o", "--output")
	readOnly["iconv"] = flagsOff("o", "--output")
	readOnly["tree"] = flagsOff("o", "-R")
	readOnly["file"] = flagsOff("C", "--compile")
	readOnly["bat"] = flagsOff("", "--pager")
	readOnly["batcat"] = readOnly["bat"]
	readOnly["ag"] = flagsOff("", "--pager")
	readOnly["ack"] = flagsOff("", "--pager")
	readOnly["hash"] = flagsOff("p", "")
	readOnly["man"] = flagsOff("PHXt", "--pager", "--html", "--gxditview")
	readOnly["cloc"] = prefixesOff("--report-file", "--out", "--sql", "--write-lang-def", "--unix-out")
	readOnly["rg"] = vetRg
	readOnly["fd"] = vetFd
	readOnly["fdfind"] = vetFd
	readOnly["sed"] = vetSed
	readOnly["gsed"] = vetSed
	for _, n := range []string{"awk", "gawk", "mawk", "nawk"} {
		readOnly[n] = vetAwk
	}
	readOnly["uniq"] = maxOperands(1, "fsw")
	readOnly["xxd"] = maxOperands(1, "cglos")
	readOnly["date"] = vetDate
	readOnly["hostname"] = vetHostname
	readOnly["stty"] = vetStty
	readOnly["nvidia-smi"] = vetNvidia
	readOnly["yq"] = flagsOff("i", "--inplace")
	readOnly["env"] = func(args []string, _ []word) string {
		for _, a := range args {
			if strings.HasPrefix(a, "-") && a != "-0" && a != "--null" {
				return a + " is not a known-safe option"
			}
		}
		return ""
	}
	readOnly["unset"] = anyArgs
	readOnly["ss"] = flagsOff("K", "--kill")
}

// namesOnly programs show names and metadata, not file contents.
var namesOnly = setOf("ls", "dir", "vdir", "stat", "du", "tree", "file", "which", "realpath", "readlink", "basename",
	"dirname", "test", "[", "[[", "eza", "exa", "fd", "fdfind", "pwd", "df", "cd", "pushd", "get-childitem", "gci", "test-path")

// known judges a program on the allowlist: read-only programs with vetted
// arguments, and the project's own builds and tests.
func (z *analyser) known(name, lname string, words []word, args []string) (Level, bool) {
	if vet, ok := readOnly[lname]; ok {
		if (lname == "printf" || lname == "read") && z.setsRiskyVar(lname, args) {
			return LevelUnknown, true
		}
		for _, w := range words[1:] {
			if namesOnly[lname] || w.dynamic || !strings.ContainsAny(w.val, "/~") && !strings.HasPrefix(w.val, ".") {
				continue
			}
			if z.credential(z.resolve(globPrefix(w.val))) {
				return z.unknown("`" + name + "` reads " + w.val + ", which holds credentials"), true
			}
		}
		if lname == "unset" && hasAnyArg(args, "HISTFILE") {
			z.danger(ClassHistoryWipe, "unset HISTFILE", "unset HISTFILE stops the shell history from being saved")
			return LevelUnknown, true
		}
		if why := vet(args, words); why != "" {
			return z.unknown("`" + name + "` is read-only only without its writing or program-running options: " + why), true
		}
		return LevelReadOnly, true
	}
	if lvl, what, ok := buildLevel(lname, args); ok {
		if lvl == LevelBuild {
			z.a.Builds = append(z.a.Builds, "`"+what+"`")
		}
		if lvl == LevelUnknown {
			return z.unknown("`" + what + "` is not a known-safe command"), true
		}
		return lvl, true
	}
	return 0, false
}

// flagsOff rejects the given short flag letters (also inside combined
// flags) and long options (also as --opt=value).
func flagsOff(short string, long ...string) vetFunc {
	return func(args []string, _ []word) string {
		for _, a := range args {
			if a == "--" {
				return ""
			}
			for _, l := range long {
				if a == l || strings.HasPrefix(a, l+"=") {
					return a + " writes files or runs another program"
				}
			}
			if short != "" && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], short) {
				return a + " writes files or runs another program"
			}
		}
		return ""
	}
}

// prefixesOff rejects long options starting with any of the prefixes.
func prefixesOff(prefixes ...string) vetFunc {
	return func(args []string, _ []word) string {
		for _, a := range args {
			for _, p := range prefixes {
				if strings.HasPrefix(a, p) {
					return a + " writes files"
				}
			}
		}
		return ""
	}
}

// maxOperands accepts at most n operands (a further one is an output file);
// valued lists the short options that take a value.
func maxOperands(n int, valued string) vetFunc {
	return func(args []string, _ []word) string {
		count := 0
		for i := 0; i < len(args); i++ {
			a := args[i]
			if len(a) == 2 && a[0] == '-' && strings.IndexByte(valued, a[1]) >= 0 {
				i++
				continue
			}
			if strings.HasPrefix(a, "-") && len(a) > 1 {
				continue
			}
			count++
		}
		if count > n {
			return "a second file operand is written"
		}
		return ""
	}
}

func vetRg(args []string, _ []word) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--pre") || strings.HasPrefix(a, "--search-zip") || strings.HasPrefix(a, "--hostname-bin") {
			return a + " runs helper programs"
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && !strings.ContainsAny(a, "=") && strings.Contains(a[1:], "z") {
			return a + " runs decompression programs"
		}
	}
	return ""
}

func vetFd(args []string, _ []word) string {
	for _, a := range args {
		if a == "--exec" || a == "--exec-batch" || a == "-x" || a == "-X" || strings.HasPrefix(a, "--exec") {
			return a + " runs a command for every match"
		}
	}
	return ""
}

func vetDate(args []string, _ []word) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-s" || strings.HasPrefix(a, "--set"):
			return a + " sets the clock"
		case a == "-d" || a == "-r" || a == "-f" || a == "--date" || a == "--reference" || a == "--file":
			i++
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
		default:
			return a + " sets the clock"
		}
	}
	return ""
}

func vetHostname(args []string, _ []word) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-F" || a == "--file" || a == "-b" || a == "--boot" {
			return a + " changes the host name"
		}
	}
	return ""
}

func vetStty(args []string, _ []word) string {
	for _, a := range args {
		if a != "-a" && a != "--all" && a != "-g" && a != "--save" && a != "size" {
			return a + " changes terminal settings"
		}
	}
	return ""
}

func vetNvidia(args []string, _ []word) string {
	for _, a := range args {
		ok := false
		for _, p := range []string{"-L", "--list-gpus", "-q", "--query", "--format", "-i", "--id", "-d", "--display"} {
			if strings.HasPrefix(a, p) {
				ok = true
			}
		}
		if !ok && strings.HasPrefix(a, "-") {
			return a + " changes GPU settings"
		}
	}
	return ""
}

// riskyVar reports variables whose value changes which programs run, what
// they load or which helper they call — set in front of a command, with
// env or by export, they turn a known-safe command into anything.
func riskyVar(name string) bool {
	u := strings.ToUpper(name)
	switch u {
	case "PATH", "CDPATH", "BASH_ENV", "ENV", "IFS", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "EDITOR", "VISUAL",
		"PAGER", "BROWSER", "LESSOPEN", "LESSCLOSE", "MANPAGER", "GIT_PAGER", "GIT_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND",
		"GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_EXEC_PATH", "GIT_DIR", "GIT_WORK_TREE",
		"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_PROXY_COMMAND",
		"GIT_SEQUENCE_EDITOR", "NODE_OPTIONS", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
		"PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "NODE_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
		"JDK_JAVA_OPTIONS", "GOFLAGS", "RUSTC_WRAPPER", "RUSTC", "CC", "CXX", "LD", "CGO_LDFLAGS", "CGO_CFLAGS",
		"RUSTFLAGS", "MAKEFLAGS", "TERMINAL", "SHELL", "ZDOTDIR", "HOME", "XDG_CONFIG_HOME", "LD_PRELOAD",
		"LD_LIBRARY_PATH", "LD_AUDIT", "GCONV_PATH", "HOSTALIASES", "RESOLV_HOST_CONF", "TMPDIR":
		return true
	}
	return strings.HasPrefix(u, "LD_") || strings.HasPrefix(u, "DYLD_") || strings.HasPrefix(u, "GIT_CONFIG_") ||
		strings.HasPrefix(u, "NPM_CONFIG_") || strings.HasPrefix(u, "CARGO_") || strings.HasPrefix(u, "BASH_FUNC_") ||
		strings.HasSuffix(u, "_PAGER") || strings.HasSuffix(u, "_EDITOR") || strings.HasSuffix(u, "ASKPASS")
}

// nameMax is the longest file name component most file systems accept.
const nameMax = 255

// BadPath reports why a path must not be trusted: a NUL byte or other
// control character (which terminal output and C APIs treat differently
// from the string the rules saw), invalid UTF-8, or a component longer
// than NAME_MAX (which no file system resolves the same way twice).
func BadPath(p string) string { return badPath(p) }

func badPath(p string) string {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f {
			if c == 0 {
				return "contains a NUL byte"
			}
			return "contains a control character"
		}
	}
	if !utf8.ValidString(p) {
		return "is not valid UTF-8"
	}
	for _, comp := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if len(comp) > nameMax {
			return "has a name component longer than 255 bytes"
		}
	}
	return ""
}

// setsRiskyVar flags `printf -v PATH …` and `read PATH`, which assign
// variables as export does.
func (z *analyser) setsRiskyVar(lname string, args []string) bool {
	var names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case lname == "printf" && a == "-v" && i+1 < len(args):
			names = append(names, args[i+1])
			i++
		case lname == "read" && (a == "-a" || a == "-p" || a == "-d" || a == "-n" || a == "-N" || a == "-t" || a == "-u" || a == "-i") && i+1 < len(args):
			if a == "-a" {
				names = append(names, args[i+1])
			}
			i++
		case lname == "read" && !strings.HasPrefix(a, "-"):
			names = append(names, a)
		}
	}
	for _, n := range names {
		if riskyVar(n) || n == "HISTFILE" {
			z.danger(ClassDynamic, lname+" "+n, lname+" sets "+n+", which changes which programs run")
			return true
		}
	}
	return false
}

// credential reports whether abs lies in a credentials store under home.
func (z *analyser) credential(abs string) bool {
	if z.opts.Home == "" {
		return false
	}
	for _, f := range credentialPaths {
		if within(abs, filepath.Join(z.opts.Home, f)) {
			return true
		}
	}
	return false
}
