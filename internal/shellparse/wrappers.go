package shellparse

import "strings"

// wrapperSpec describes a command that runs another command given as its
// remaining arguments.
type wrapperSpec struct {
	// argOpts are options that consume the next argument.
	argOpts []string
	// positional is the number of leading non-option arguments before the
	// wrapped command (timeout DURATION, taskset MASK).
	positional int
	// assigns skips NAME=VALUE words (env).
	assigns bool
	// privilege marks wrappers that raise privileges.
	privilege bool
	// transparent wrappers only change how the wrapped command runs
	// (time limit, priority, buffering): the command keeps its level.
	transparent bool
}

var wrappers = map[string]wrapperSpec{
	"sudo":        {argOpts: []string{"-u", "-g", "-C", "-h", "-p", "-r", "-t", "-U", "-D", "-T", "-R", "--user", "--group", "--prompt", "--chdir"}, privilege: true, assigns: true},
	"doas":        {argOpts: []string{"-u", "-C"}, privilege: true},
	"pkexec":      {argOpts: []string{"--user"}, privilege: true},
	"runas":       {privilege: true},
	"env":         {argOpts: []string{"-u", "-C", "--unset", "--chdir", "-S", "--split-string"}, assigns: true, transparent: true},
	"command":     {transparent: true},
	"builtin":     {transparent: true},
	"nice":        {argOpts: []string{"-n", "--adjustment"}, transparent: true},
	"nohup":       {transparent: true},
	"timeout":     {argOpts: []string{"-s", "-k", "--signal", "--kill-after"}, positional: 1, transparent: true},
	"time":        {argOpts: []string{"-f", "-o", "--format", "--output"}, transparent: true},
	"stdbuf":      {argOpts: []string{"-i", "-o", "-e"}, transparent: true},
	"ionice":      {argOpts: []string{"-c", "-n", "-p", "--class", "--classdata"}, transparent: true},
	"chrt":        {positional: 1, transparent: true},
	"taskset":     {positional: 1, transparent: true},
	"setsid":      {transparent: true},
	"exec":        {argOpts: []string{"-a"}, transparent: true},
	"busybox":     {transparent: true},
	"unbuffer":    {transparent: true},
	"strace":      {argOpts: []string{"-e", "-o", "-p", "-s", "-u"}},
	"ltrace":      {argOpts: []string{"-e", "-o", "-p", "-s", "-u"}},
	"xargs":       {argOpts: []string{"-I", "-n", "-P", "-d", "-L", "-a", "-E", "-s", "--max-args", "--max-procs", "--delimiter", "--arg-file", "--max-lines", "--replace"}, transparent: true},
	"watch":       {argOpts: []string{"-n", "--interval", "-d"}, transparent: true},
	"flock":       {argOpts: []string{"-w", "-E", "--timeout"}, positional: 1},
	"caffeinate":  {argOpts: []string{"-t", "-w"}, transparent: true},
	"proxychains": {argOpts: []string{"-f"}},
	"torsocks":    {},
	"firejail":    {},
	"chroot":      {positional: 1, privilege: true},
}

// unwrapIdx returns the index in argv where the wrapped command starts, if
// argv[0] is a wrapper with a command to run.
func unwrapIdx(argv []string) (int, bool) {
	if len(argv) == 0 {
		return 0, false
	}
	spec, ok := wrappers[cmdName(argv[0])]
	if !ok {
		return 0, false
	}
	if cmdName(argv[0]) == "command" {
		for _, a := range argv[1:] {
			if a == "-v" || a == "-V" {
				return 0, false
			}
		}
	}
	i := 1
	pos := spec.positional
	for i < len(argv) {
		a := argv[i]
		switch {
		case a == "--":
			i++
			if pos > 0 {
				i += pos
			}
			if i < len(argv) {
				return i, true
			}
			return 0, false
		case strings.HasPrefix(a, "-") && len(a) > 1 && pos == spec.positional:
			consumes := false
			for _, o := range spec.argOpts {
				if a == o {
					consumes = true
				}
			}
			if consumes {
				i++
			}
			i++
		case spec.assigns && strings.Contains(a, "=") && !strings.HasPrefix(a, "="):
			i++
		case pos > 0:
			pos--
			i++
		default:
			return i, true
		}
	}
	return 0, false
}

// unwrap returns the wrapped command of a wrapper invocation.
func unwrap(argv []string) ([]string, bool) {
	i, ok := unwrapIdx(argv)
	if !ok {
		return nil, false
	}
	return argv[i:], true
}

var downloaders = map[string]bool{
	"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true, "https": true, "xh": true,
	"iwr": true, "irm": true, "invoke-webrequest": true, "invoke-restmethod": true, "lwp-request": true, "GET": true,
}

func isDownloader(name string) bool {
	return downloaders[name] || downloaders[strings.ToLower(name)]
}

var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"fish": true, "csh": true, "tcsh": true, "yash": true,
}

func isShell(name string) bool { return shells[name] }

// interpreters run code; the value lists the flags that take inline code.
var interpreters = map[string][]string{
	"python": {"-c", "-m"}, "python2": {"-c", "-m"}, "python3": {"-c", "-m"}, "pypy": {"-c", "-m"}, "pypy3": {"-c", "-m"},
	"perl": {"-e", "-E"}, "ruby": {"-e"}, "node": {"-e", "--eval", "-p", "--print"}, "nodejs": {"-e", "--eval"},
	"deno": {"eval"}, "bun": {"-e", "--eval"}, "php": {"-r"}, "lua": {"-e"}, "osascript": {"-e"},
	"pwsh": {"-c", "-command", "-Command"}, "powershell": {"-c", "-command", "-Command"},
	"iex": {}, "invoke-expression": {}, "tclsh": {}, "Rscript": {"-e"},
}

// isInterpreter reports whether a pipeline stage would execute its stdin.
func isInterpreter(name string, args []string) bool {
	if isShell(name) {
		for _, a := range args {
			if a == "-s" || a == "-" || a == "/dev/stdin" {
				return true
			}
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
				return false
			}
			if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
				return false
			}
		}
		return true
	}
	lname := strings.ToLower(name)
	if lname == "source" || lname == "." || lname == "eval" {
		return len(args) == 0 || args[0] == "/dev/stdin" || args[0] == "-"
	}
	if lname == "iex" || lname == "invoke-expression" {
		return true
	}
	base := lname
	for _, suffix := range []string{".exe"} {
		base = strings.TrimSuffix(base, suffix)
	}
	codeFlags, ok := interpreters[base]
	if !ok && strings.HasPrefix(base, "python") {
		codeFlags, ok = interpreters["python"]
	}
	if !ok {
		return false
	}
	for _, a := range args {
		if a == "-" || a == "/dev/stdin" {
			return true
		}
		for _, f := range codeFlags {
			if a == f {
				return false
			}
		}
		if !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}
