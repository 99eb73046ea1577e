package shellparse

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word after static quote removal.
type word struct {
	val     string
	dynamic bool // depends on runtime values (variables, substitutions)
	glob    bool // contains unquoted pattern characters
	node    *syntax.Word
}

// word resolves w statically: quotes removed, escapes decoded, ~ and $HOME
// and $PWD expanded; everything else marks the word dynamic.
func (z *analyser) word(w *syntax.Word) word {
	out := word{node: w}
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				rest := v[1:]
				if rest == "" || rest[0] == '/' {
					v = z.opts.Home + rest
				} else {
					out.dynamic = true
				}
			}
			if strings.ContainsAny(unescapedMeta(v), "*?[{") {
				out.glob = true
			}
			if i == 0 && isWindowsAbs(v) {
				b.WriteString(v) // C:\Users\x: backslashes are separators
				continue
			}
			b.WriteString(unescape(v))
		case *syntax.SglQuoted:
			if p.Dollar {
				b.WriteString(ansiC(p.Value))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				switch q := dp.(type) {
				case *syntax.Lit:
					b.WriteString(unescapeDbl(q.Value))
				case *syntax.ParamExp:
					b.WriteString(z.param(q, &out))
				default:
					out.dynamic = true
					b.WriteString("$(…)")
				}
			}
		case *syntax.ParamExp:
			b.WriteString(z.param(p, &out))
		case *syntax.ExtGlob:
			out.glob = true
			b.WriteString(p.Op.String() + p.Pattern.Value + ")")
		default:
			out.dynamic = true
			b.WriteString("$(…)")
		}
	}
	out.val = b.String()
	return out
}

// param expands the few variables whose value is known statically.
func (z *analyser) param(p *syntax.ParamExp, out *word) string {
	simple := p.Param != nil && !p.Excl && !p.Length && p.Index == nil && p.Slice == nil &&
		p.Repl == nil && p.Exp == nil && p.Names == 0
	if simple {
		switch p.Param.Value {
		case "HOME":
			return z.opts.Home
		case "PWD":
			return z.cwd
		}
	}
	out.dynamic = true
	if p.Param != nil {
		return "$" + p.Param.Value
	}
	return "$…"
}

// unescape removes backslash escapes of an unquoted literal.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapedMeta returns s with escaped characters removed, so pattern
// characters that were escaped do not count as globs.
func unescapedMeta(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDbl removes the escapes that are special inside double quotes.
func unescapeDbl(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the body of a $'...' string.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			maxDigits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < maxDigits && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
