package shellparse

import "strings"

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
