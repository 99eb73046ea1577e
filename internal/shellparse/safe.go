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

// hasInPlace reports whether sed's arguments ask for in-place editing.
func hasInPlace(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--in-place" || strings.HasPrefix(a, "--in-place=") {
			return true
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' {
			for _, c := range a[1:] {
				if c == 'i' {
					return true
				}
				if c == 'e' || c == 'f' || c == 'l' {
					break // the rest is a value
				}
			}
		}
	}
	return false
}

// sedArgs splits sed's arguments into its script and its files; why is
// set when the script cannot be seen (-f FILE) or an option is unknown.
func sedArgs(args []string, words []word) (script string, files []word, why string) {
	var scripts []string
	explicit := false
	dd := false
	var ops []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		w := words[i+1]
		switch {
		case dd || !strings.HasPrefix(a, "-") || a == "-":
			ops = append(ops, w)
		case a == "--":
			dd = true
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
			explicit = true
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a, "--expression="))
			explicit = true
		case a == "-f" || strings.HasPrefix(a, "--file"):
			return "", nil, a + " reads a script file that is not judged"
		case a == "-l" || a == "--line-length":
			i++
		case strings.HasPrefix(a, "--"):
			switch strings.SplitN(a, "=", 2)[0] {
			case "--in-place", "--quiet", "--silent", "--regexp-extended", "--separate", "--null-data", "--unbuffered",
				"--posix", "--debug", "--sandbox", "--follow-symlinks", "--zero-terminated", "--line-length":
			default:
				return "", nil, a + " is not a known-safe option"
			}
		default:
			flags := a[1:]
			for j := 0; j < len(flags); j++ {
				c := flags[j]
				switch c {
				case 'n', 's', 'E', 'r', 'z', 'u':
				case 'i':
					j = len(flags) // the rest is a backup suffix
				case 'e':
					explicit = true
					if rest := flags[j+1:]; rest != "" {
						scripts = append(scripts, rest)
					} else if i+1 < len(args) {
						scripts = append(scripts, args[i+1])
						i++
					}
					j = len(flags)
				case 'l':
					if j == len(flags)-1 {
						i++
					}
					j = len(flags)
				case 'f':
					return "", nil, "-f reads a script file that is not judged"
				default:
					return "", nil, "-" + string(c) + " is not a known-safe option"
				}
			}
		}
	}
	if !explicit && len(ops) > 0 {
		if ops[0].dynamic {
			return "", nil, "script only known at run time"
		}
		scripts = append(scripts, ops[0].val)
		ops = ops[1:]
	}
	for _, w := range words[1:] {
		if w.dynamic && len(scripts) > 0 && strings.Contains(strings.Join(scripts, "\n"), w.val) {
			return "", nil, "script only known at run time"
		}
	}
	return strings.Join(scripts, "\n"), ops, ""
}

func vetSed(args []string, words []word) string {
	if hasInPlace(args) {
		return "-i edits files in place"
	}
	script, _, why := sedArgs(args, words)
	if why != "" {
		return why
	}
	return sedScriptUnsafe(script)
}

// sedScriptUnsafe parses a sed script far enough to find the commands that
// write files (w, W, s///w) or run programs (e, s///e); it returns why the
// script is not read-only, or "" when it is. What it cannot parse is unsafe.
func sedScriptUnsafe(s string) string {
	i := 0
	n := len(s)
	readDelim := func(d byte) bool { // reads up to an unescaped d; false at the end
		for i < n {
			c := s[i]
			i++
			if c == '\\' && i < n {
				i++
				continue
			}
			if c == d {
				return true
			}
			if c == '\n' && d != '\n' {
				return false
			}
		}
		return false
	}
	address := func() bool {
		if i < n && s[i] == '/' {
			i++
			if !readDelim('/') {
				return false
			}
			for i < n && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		} else if i < n && s[i] == '\\' && i+1 < n {
			d := s[i+1]
			i += 2
			if !readDelim(d) {
				return false
			}
		} else {
			for i < n && (s[i] >= '0' && s[i] <= '9' || s[i] == '$' || s[i] == '~' || s[i] == '+') {
				i++
			}
		}
		return true
	}
	toEOL := func() {
		for i < n && s[i] != '\n' {
			i++
		}
	}
	for i < n {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '}' {
			i++
			continue
		}
		if c == '#' {
			toEOL()
			continue
		}
		if !address() {
			return "has an address that cannot be parsed"
		}
		for i < n && (s[i] == ' ' || s[i] == ',') {
			if s[i] == ',' {
				i++
				if !address() {
					return "has an address that cannot be parsed"
				}
				continue
			}
			i++
		}
		for i < n && (s[i] == '!' || s[i] == ' ') {
			i++
		}
		if i >= n {
			return ""
		}
		cmd := s[i]
		i++
		switch cmd {
		case '{', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F', 'q', 'Q':
			for i < n && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case 'a', 'i', 'c', 'r', 'R', ':', 'b', 't', 'T', 'v':
			toEOL()
		case 's', 'y':
			if i >= n {
				return "is incomplete"
			}
			d := s[i]
			i++
			if d == '\\' || d == '\n' {
				return "uses an unusual delimiter"
			}
			if !readDelim(d) || !readDelim(d) {
				return "has an unterminated " + string(cmd) + " command"
			}
			if cmd == 's' {
				for i < n && s[i] != ';' && s[i] != '\n' && s[i] != '}' && s[i] != ' ' {
					f := s[i]
					switch {
					case f == 'w' || f == 'W':
						return "writes a file (s///w)"
					case f == 'e':
						return "runs a command (s///e)"
					case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9':
					default:
						return "has an unknown s/// flag " + string(f)
					}
					i++
				}
			}
		case 'w', 'W':
			return "writes a file (" + string(cmd) + ")"
		case 'e':
			return "runs a command (e)"
		default:
			return "uses the unknown command " + string(cmd)
		}
	}
	return ""
}

// vetAwk accepts an awk program that has no system(), pipes, output
// redirection, extension loading or program file.
func vetAwk(args []string, words []word) string {
	var prog string
	seen := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || strings.HasPrefix(a, "--file") || a == "-E" || strings.HasPrefix(a, "--exec") ||
			a == "-i" || strings.HasPrefix(a, "--include") || a == "-l" || strings.HasPrefix(a, "--load"):
			return a + " loads a program file or extension that is not judged"
		case a == "-F" || a == "-v" || a == "--assign" || a == "--field-separator":
			i++
		case strings.HasPrefix(a, "--source="):
			prog += "\n" + strings.TrimPrefix(a, "--source=")
			seen = true
		case strings.HasPrefix(a, "--") && !seen:
			switch strings.SplitN(a, "=", 2)[0] {
			case "--field-separator", "--assign", "--posix", "--traditional", "--re-interval", "--characters-as-bytes",
				"--sandbox", "--lint", "--use-lc-numeric", "--non-decimal-data", "--bignum", "--version", "--help":
			default:
				return a + " is not a known-safe awk option"
			}
		case a == "-e" || a == "--source":
			if i+1 < len(args) {
				prog += "\n" + args[i+1]
				i++
			}
			seen = true
		case strings.HasPrefix(a, "-") && a != "-" && !seen:
		case !seen:
			if words[i+1].dynamic {
				return "the program is only known at run time"
			}
			prog, seen = a, true
		}
	}
	return awkProgramUnsafe(prog)
}

// awkProgramUnsafe looks for what lets an awk program act beyond printing.
func awkProgramUnsafe(prog string) string {
	code := stripAwkStrings(prog)
	if strings.Contains(code, "system") || strings.Contains(code, "@load") || strings.Contains(code, "@include") {
		return "the program runs commands or loads extensions"
	}
	if strings.Contains(strings.ReplaceAll(code, "||", ""), "|") {
		return "the program pipes to or from a command"
	}
	// ">" is output redirection only inside print/printf statements.
	for _, stmt := range strings.FieldsFunc(code, func(r rune) bool { return r == ';' || r == '\n' || r == '{' || r == '}' }) {
		if p := strings.Index(stmt, "print"); p >= 0 && strings.Contains(stmt[p:], ">") {
			return "the program redirects output to a file"
		}
	}
	return ""
}

// stripAwkStrings blanks out string literals so their text is not taken
// for code.
func stripAwkStrings(s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
			b.WriteByte(' ')
		case !in:
			b.WriteByte(c)
		}
	}
	return b.String()
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
