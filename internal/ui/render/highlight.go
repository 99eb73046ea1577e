package render

import (
	"strings"
	"sync"
)

// A small highlighter for code blocks: comments, strings, numbers and
// keywords of the languages models write most. A full lexer library
// (chroma) costs ~26 ms of package initialisation at every start of hew
// (measured; see the repl note), so hew keeps this one: one line at a
// time, no state between lines beyond the block's language.

// langSyntax is what the highlighter knows of one language.
type langSyntax struct {
	line     []string // line comment starts
	keywords map[string]bool
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

const cLike = "break case const continue default do else for if return switch while struct enum static void int char long float double unsigned sizeof typedef goto extern"

// syntaxes is built on first use, so starting hew costs nothing.
var syntaxes = sync.OnceValue(func() map[string]*langSyntax {
	m := map[string]*langSyntax{
		"go":     {line: []string{"//"}, keywords: words("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota error string int bool byte rune any")},
		"python": {line: []string{"#"}, keywords: words("and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self")},
		"js":     {line: []string{"//"}, keywords: words("async await break case catch class const continue default delete do else export extends false finally for from function if import in instanceof let new null of return super switch this throw true try typeof undefined var void while yield interface type enum implements readonly")},
		"rust":   {line: []string{"//"}, keywords: words("as async await break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while Some None Ok Err")},
		"sh":     {line: []string{"#"}, keywords: words("if then else elif fi for while do done case esac function in return local export echo cd set unset exit")},
		"c":      {line: []string{"//"}, keywords: words(cLike + " include define class public private protected new delete template namespace using virtual bool true false nullptr auto")},
		"java":   {line: []string{"//"}, keywords: words(cLike + " class public private protected new import package extends implements interface final this super throw throws try catch finally null true false boolean var")},
		"sql":    {line: []string{"--"}, keywords: words("select from where and or not insert into values update set delete create table drop alter index join left right inner outer on group by order having limit as null is in SELECT FROM WHERE AND OR NOT INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE DROP ALTER INDEX JOIN LEFT RIGHT INNER OUTER ON GROUP BY ORDER HAVING LIMIT AS NULL IS IN")},
		"yaml":   {line: []string{"#"}, keywords: words("true false null yes no")},
		"json":   {keywords: words("true false null")},
	}
	for _, pair := range strings.Fields(langAliases) {
		alias, name, _ := strings.Cut(pair, "=")
		m[alias] = m[name]
	}
	m["diff"] = nil
	return m
})

// langAliases maps the names used after a fence to the syntaxes' names.
const langAliases = "golang=go py=python python3=python javascript=js ts=js typescript=js jsx=js tsx=js rs=rust " +
	"bash=sh shell=sh zsh=sh console=sh cpp=c c++=c h=c cc=c csharp=java cs=java kotlin=java " +
	"yml=yaml toml=yaml ini=yaml jsonc=json"

// highlight colours one line of code in language lang; an unknown
// language gets strings and numbers only.
func highlight(s, lang string, st styles) string {
	if !st.on || s == "" {
		return s
	}
	syn := syntaxes()[lang]
	if lang == "diff" {
		switch {
		case strings.HasPrefix(s, "+"):
			return st.green(s)
		case strings.HasPrefix(s, "-"):
			return st.red(s)
		case strings.HasPrefix(s, "@@"):
			return st.cyan(s)
		}
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if syn != nil {
			if cm := lineComment(s[i:], syn.line); cm && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t' || syn.line[0] != "#") {
				b.WriteString(st.dim(s[i:]))
				break
			}
		}
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			b.WriteString(st.green(s[i:j]))
			i = j
			continue
		case c >= '0' && c <= '9' && (i == 0 || !isIdent(s[i-1])):
			j := i
			for j < len(s) && (isIdent(s[j]) || s[j] == '.') {
				j++
			}
			b.WriteString(st.cyan(s[i:j]))
			i = j
			continue
		case isIdent(c):
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			w := s[i:j]
			if syn != nil && syn.keywords[w] {
				b.WriteString(st.magenta(w))
			} else {
				b.WriteString(w)
			}
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func lineComment(s string, starts []string) bool {
	for _, p := range starts {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
