package tools

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
)

// EditErrorKind classifies why an edit could not be applied.
type EditErrorKind int

// Edit failure kinds.
const (
	EditNotFound EditErrorKind = iota
	EditAmbiguous
	EditAlreadyApplied
	EditInvalid
)

// EditError explains a refused edit in words the model can act on.
type EditError struct {
	Kind  EditErrorKind
	Lines []int // candidate line numbers (1-based)
	Msg   string
}

// Error returns the model-facing explanation.
func (e *EditError) Error() string { return e.Msg }

// editRegion is one replaced byte range of the original content.
type editRegion struct {
	Start, End  int
	Replacement string
}

// editOutcome is an applied edit.
type editOutcome struct {
	Content string
	Regions []editRegion
	// Stage is "exact" or the fallback that matched (e.g. "line endings").
	Stage string
}

// normFlags select the tolerant comparisons, applied cumulatively.
type normFlags struct{ crlf, quotes, nbsp, trailing, indent bool }

// fallbackStages each add one tolerance; relevant reports whether the
// added tolerance can change anything for this content and old_string (a
// stage that cannot is skipped: it would repeat the previous one).
var fallbackStages = []struct {
	name     string
	flags    normFlags
	relevant func(s string) bool
}{
	{"line endings", normFlags{crlf: true}, func(s string) bool { return strings.Contains(s, "\r") }},
	{"curly quotes", normFlags{crlf: true, quotes: true}, func(s string) bool { return strings.ContainsAny(s, "‘’‚‛′“”„‟″") }},
	{"non-breaking spaces", normFlags{crlf: true, quotes: true, nbsp: true}, func(s string) bool { return strings.ContainsAny(s, "\u00a0\u202f\u2007") }},
	{"trailing whitespace", normFlags{crlf: true, quotes: true, nbsp: true, trailing: true}, hasTrailingBlank},
	{"indentation (tabs vs spaces)", normFlags{crlf: true, quotes: true, nbsp: true, trailing: true, indent: true}, func(string) bool { return true }},
}

func hasTrailingBlank(s string) bool {
	for _, t := range []string{" \n", "\t\n", " \r", "\t\r", "\u00a0\n"} {
		if strings.Contains(s, t) {
			return true
		}
	}
	return strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\t")
}

// applyEdit replaces old with new in content. The exact text must match
// once (or replaceAll); otherwise the tolerant stages are tried in order
// and a stage is accepted only when it matches exactly once, writing the
// replacement in the file's own style. An edit whose result is already
// present is reported as EditAlreadyApplied instead of being doubled.
func applyEdit(content, old, new string, replaceAll bool) (editOutcome, error) {
	if old == "" {
		return editOutcome{}, &EditError{Kind: EditInvalid, Msg: "old_string is empty"}
	}
	if old == new {
		return editOutcome{}, &EditError{Kind: EditInvalid, Msg: "old_string and new_string are identical; nothing to change"}
	}
	new = matchEOL(content, new)
	if old == new {
		return editOutcome{}, &EditError{Kind: EditInvalid, Msg: "old_string and new_string differ only in line endings; nothing to change"}
	}
	fresh, covered := classifyHits(content, old, new)
	switch {
	case len(fresh) == 0 && len(covered) > 0:
		return editOutcome{}, &EditError{Kind: EditAlreadyApplied, Lines: lineNumbers(content, covered),
			Msg: fmt.Sprintf("new_string is already in place at line %d (old_string only occurs inside it); the edit appears to be applied already, nothing changed", lineOf(content, covered[0]))}
	case len(fresh) == 1 && len(covered) > 0 && !replaceAll:
		all := lineNumbers(content, append(append([]int(nil), fresh...), covered...))
		return editOutcome{}, &EditError{Kind: EditAmbiguous, Lines: all,
			Msg: fmt.Sprintf("old_string matches %d times (lines %s) and new_string is already in place at line %d; if the edit is already applied, stop; otherwise include more surrounding lines to pick one", len(fresh)+len(covered), joinInts(all), lineOf(content, covered[0]))}
	case len(fresh) > 1 && !replaceAll:
		lines := lineNumbers(content, fresh)
		return editOutcome{}, &EditError{Kind: EditAmbiguous, Lines: lines,
			Msg: fmt.Sprintf("old_string matches %d times (lines %s); include more surrounding lines to make it unique, or set replace_all to true to change every occurrence", len(fresh), joinInts(lines))}
	case len(fresh) >= 1:
		regions := make([]editRegion, len(fresh))
		for i, p := range fresh {
			regions[i] = editRegion{Start: p, End: p + len(old), Replacement: new}
		}
		return editOutcome{Content: splice(content, regions), Regions: regions, Stage: "exact"}, nil
	}
	for _, st := range fallbackStages {
		if !st.relevant(content) && !st.relevant(old) {
			continue
		}
		out, err, ok := tryStage(content, old, new, st.name, st.flags)
		if ok {
			return out, err
		}
	}
	if new != "" && strings.Contains(content, new) {
		p := strings.Index(content, new)
		return editOutcome{}, &EditError{Kind: EditAlreadyApplied, Lines: []int{lineOf(content, p)},
			Msg: fmt.Sprintf("old_string was not found, but new_string is already present at line %d; the edit appears to be applied already, nothing changed", lineOf(content, p))}
	}
	return editOutcome{}, notFound(content, old, new)
}

// matchEOL writes s with the file's line endings: a CRLF file stays CRLF
// even when the model sends bare newlines, and an LF file gets no CRs.
func matchEOL(content, s string) string {
	crlf := strings.Count(content, "\r\n")
	lf := strings.Count(content, "\n") - crlf
	switch {
	case crlf > 0 && crlf >= lf:
		return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
	case crlf == 0 && lf > 0:
		return strings.ReplaceAll(s, "\r\n", "\n")
	}
	return s
}

// classifyHits finds the occurrences of old and splits them into fresh
// ones and those lying inside an occurrence of new (already edited).
func classifyHits(content, old, new string) (fresh, covered []int) {
	for _, p := range indexAll(content, old) {
		if coveredByNew(content, p, old, new) {
			covered = append(covered, p)
		} else {
			fresh = append(fresh, p)
		}
	}
	return fresh, covered
}

// tryStage attempts one tolerant comparison. ok=false means "no match at
// this stage, try the next".
func tryStage(content, old, new, name string, f normFlags) (editOutcome, error, bool) {
	nc := normalize(content, f)
	no := normalize(old, f)
	if no.s == "" || (no.s == old && nc.s == content) {
		return editOutcome{}, nil, false
	}
	nn := normalize(new, f)
	hits, covered := classifyHits(nc.s, no.s, nn.s)
	if len(hits) == 0 && len(covered) > 0 {
		p := nc.own[covered[0]]
		return editOutcome{}, &EditError{Kind: EditAlreadyApplied, Lines: []int{lineOf(content, p)},
			Msg: fmt.Sprintf("new_string is already in place at line %d (ignoring %s); the edit appears to be applied already, nothing changed", lineOf(content, p), name)}, true
	}
	if len(covered) > 0 {
		hits = append(hits, covered...)
		sort.Ints(hits)
	}
	if len(hits) == 0 {
		if new != "" && nn.s != "" && strings.Contains(nc.s, nn.s) {
			p := nc.own[strings.Index(nc.s, nn.s)]
			return editOutcome{}, &EditError{Kind: EditAlreadyApplied, Lines: []int{lineOf(content, p)},
				Msg: fmt.Sprintf("old_string was not found, but new_string is already present at line %d (ignoring %s); the edit appears to be applied already, nothing changed", lineOf(content, p), name)}, true
		}
		return editOutcome{}, nil, false
	}
	if len(hits) > 1 {
		starts := make([]int, len(hits))
		for i, h := range hits {
			starts[i] = nc.own[h]
		}
		lines := lineNumbers(content, starts)
		return editOutcome{}, &EditError{Kind: EditAmbiguous, Lines: lines,
			Msg: fmt.Sprintf("old_string was not found exactly; ignoring %s it matches %d times (lines %s), and a tolerant match must be unique: copy the exact text from read_file output and include more surrounding lines", name, len(hits), joinInts(lines))}, true
	}
	a, b := hits[0], hits[0]+len(no.s)
	start, end := nc.own[a], nc.ownEnd[b-1]
	if len(no.s) > 0 && no.st[0] < no.own[0] {
		start = nc.st[a] // old carried its own leading whitespace: take the file's
	}
	if no.en[len(no.s)-1] > no.ownEnd[len(no.s)-1] {
		end = nc.en[b-1]
	}
	region := content[start:end]
	repl, ok := transferStyle(content, region, old, new, f)
	if !ok {
		return editOutcome{}, nil, false
	}
	if repl == region {
		return editOutcome{}, &EditError{Kind: EditAlreadyApplied, Lines: []int{lineOf(content, start)},
			Msg: fmt.Sprintf("the text at line %d already reads like new_string (ignoring %s); nothing changed", lineOf(content, start), name)}, true
	}
	regions := []editRegion{{Start: start, End: end, Replacement: repl}}
	return editOutcome{Content: splice(content, regions), Regions: regions, Stage: name}, nil, true
}

func notFound(content, old, new string) error {
	msg := "old_string not found — re-read the file with read_file and copy the exact text, including indentation and whitespace"
	if first := firstNonBlankLine(old); first != "" {
		for i, l := range strings.Split(content, "\n") {
			if strings.TrimSpace(l) == first {
				if strings.Contains(strings.TrimSpace(old), "\n") {
					msg += fmt.Sprintf(" (its first line appears at line %d; the lines after it differ)", i+1)
				} else {
					msg += fmt.Sprintf(" (line %d has the same text with different whitespace around it)", i+1)
				}
				break
			}
		}
	}
	return &EditError{Kind: EditNotFound, Msg: msg}
}

// coveredByNew reports whether the occurrence of old at p lies inside an
// occurrence of new (so the edit was already made there).
func coveredByNew(content string, p int, old, new string) bool {
	if len(new) <= len(old) {
		return false
	}
	for k := strings.Index(new, old); k >= 0; {
		if s := p - k; s >= 0 && s+len(new) <= len(content) && content[s:s+len(new)] == new {
			return true
		}
		next := strings.Index(new[k+1:], old)
		if next < 0 {
			break
		}
		k += next + 1
	}
	return false
}

// indexAll returns the start of every non-overlapping occurrence of sub.
func indexAll(s, sub string) []int {
	var out []int
	for off := 0; off <= len(s); {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			break
		}
		out = append(out, off+i)
		off += i + len(sub)
	}
	return out
}

func splice(content string, regions []editRegion) string {
	var b strings.Builder
	prev := 0
	for _, r := range regions {
		b.WriteString(content[prev:r.Start])
		b.WriteString(r.Replacement)
		prev = r.End
	}
	b.WriteString(content[prev:])
	return b.String()
}

func lineOf(content string, off int) int { return strings.Count(content[:off], "\n") + 1 }

func lineNumbers(content string, offs []int) []int {
	out := make([]int, len(offs))
	for i, o := range offs {
		out[i] = lineOf(content, o)
	}
	return out
}

func joinInts(xs []int) string {
	var parts []string
	for i, x := range xs {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(xs)-10))
			break
		}
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, ", ")
}

func firstNonBlankLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// normText is a normalized string with, for every byte, the span of the
// original text it stands for: own/ownEnd is the character itself, st/en
// also covers dropped characters attached to it.
type normText struct {
	s           string
	own, ownEnd []int
	st, en      []int
}

func isNBSP(r rune) bool { return r == '\u00a0' || r == '\u202f' || r == '\u2007' }

func isHSpace(r rune, f normFlags) bool { return r == ' ' || r == '\t' || (f.nbsp && isNBSP(r)) }

func quoteOf(r rune) (byte, bool) {
	switch r {
	case '‘', '’', '‚', '‛', '′':
		return '\'', true
	case '“', '”', '„', '‟', '″':
		return '"', true
	}
	return 0, false
}

// normalize applies the comparisons selected by f. Dropped characters (CR
// before LF, trailing blanks, indentation) attach to the next kept
// character, or to the last one at the end of the text.
func normalize(s string, f normFlags) normText {
	t := normText{own: make([]int, 0, len(s)), ownEnd: make([]int, 0, len(s)), st: make([]int, 0, len(s)), en: make([]int, 0, len(s))}
	out := make([]byte, 0, len(s))
	pending := -1
	emit := func(b byte, start, end int) {
		st := start
		if pending >= 0 {
			st = pending
			pending = -1
		}
		out = append(out, b)
		t.own, t.ownEnd = append(t.own, start), append(t.ownEnd, end)
		t.st, t.en = append(t.st, st), append(t.en, end)
	}
	drop := func(i int) {
		if pending < 0 {
			pending = i
		}
	}
	lineStart := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if f.indent && lineStart && isHSpace(r, f) {
			drop(i)
			i += size
			continue
		}
		lineStart = false
		if f.crlf && r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			drop(i)
			i++
			continue
		}
		if f.trailing && isHSpace(r, f) {
			j := i
			for j < len(s) {
				r2, sz := utf8.DecodeRuneInString(s[j:])
				if !isHSpace(r2, f) {
					break
				}
				j += sz
			}
			if j == len(s) || s[j] == '\n' || (f.crlf && s[j] == '\r' && j+1 < len(s) && s[j+1] == '\n') {
				drop(i)
				i = j
				continue
			}
			for k := i; k < j; { // a blank run inside the line: keep it
				r2, sz := utf8.DecodeRuneInString(s[k:])
				if isNBSP(r2) {
					emit(' ', k, k+sz)
				} else {
					emit(s[k], k, k+1)
				}
				k += sz
			}
			i = j
			continue
		}
		switch q, isQ := quoteOf(r); {
		case f.quotes && isQ:
			emit(q, i, i+size)
		case f.nbsp && isNBSP(r):
			emit(' ', i, i+size)
		default:
			for k := 0; k < size; k++ {
				emit(s[i+k], i+k, i+k+1)
			}
		}
		if r == '\n' {
			lineStart = true
		}
		i += size
	}
	if pending >= 0 && len(t.en) > 0 {
		t.en[len(t.en)-1] = len(s)
	}
	t.s = string(out)
	return t
}

// transferStyle builds the replacement for a tolerant match: lines the
// model left unchanged keep the file's exact text (region), changed lines
// are converted to the file's line endings, quotes and indentation.
func transferStyle(content, region, old, new string, f normFlags) (string, bool) {
	st := fileStyle{crlf: strings.Contains(content, "\r\n"), f: f}
	if f.quotes {
		st.curlySingle = strings.ContainsAny(region, "‘’") && !strings.ContainsAny(old, "‘’")
		st.curlyDouble = strings.ContainsAny(region, "“”") && !strings.ContainsAny(old, "“”")
		st.straighten = strings.ContainsAny(old, "‘’“”") && !strings.ContainsAny(region, "‘’“”")
	}
	st.nbspOK = strings.ContainsAny(region, "\u00a0\u202f\u2007")
	oLines := strings.SplitAfter(old, "\n")
	rLines := strings.SplitAfter(region, "\n")
	if len(oLines) != len(rLines) {
		return st.apply(new), true
	}
	if f.indent {
		w, ok := indentWidth(oLines, rLines)
		if !ok {
			return "", false
		}
		st.width = w
		st.tabs = strings.Contains(leadingBlanks(region), "\t") || fileIndentsWithTabs(content)
	}
	edits := udiff.Lines(old, new)
	var b strings.Builder
	lineAt := func(off int) (int, bool) {
		if off != 0 && off != len(old) && old[off-1] != '\n' {
			return 0, false
		}
		return strings.Count(old[:off], "\n"), true
	}
	pos := 0
	for _, e := range edits {
		from, ok1 := lineAt(pos)
		to, ok2 := lineAt(e.Start)
		_, ok3 := lineAt(e.End)
		if !ok1 || !ok2 || !ok3 {
			return st.apply(new), true
		}
		for i := from; i < to; i++ {
			b.WriteString(rLines[i])
		}
		b.WriteString(st.apply(e.New))
		pos = e.End
	}
	if pos < len(old) {
		from, ok := lineAt(pos)
		if !ok {
			return st.apply(new), true
		}
		for i := from; i < len(rLines); i++ {
			b.WriteString(rLines[i])
		}
	}
	return b.String(), true
}

type fileStyle struct {
	f                        normFlags
	crlf                     bool
	curlySingle, curlyDouble bool
	straighten               bool
	nbspOK                   bool
	width                    int
	tabs                     bool
}

// apply converts text the model wrote into the file's conventions.
func (s fileStyle) apply(text string) string {
	if s.f.crlf {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		if s.crlf {
			text = strings.ReplaceAll(text, "\n", "\r\n")
		}
	}
	if s.f.quotes {
		switch {
		case s.straighten:
			text = strings.NewReplacer("‘", "'", "’", "'", "“", `"`, "”", `"`).Replace(text)
		case s.curlySingle || s.curlyDouble:
			text = curlify(text, s.curlySingle, s.curlyDouble)
		}
	}
	if s.f.nbsp && !s.nbspOK {
		text = strings.NewReplacer("\u00a0", " ", "\u202f", " ", "\u2007", " ").Replace(text)
	}
	if s.f.indent && s.width > 0 {
		lines := strings.SplitAfter(text, "\n")
		for i, l := range lines {
			ind := leadingBlanks(l)
			if ind == "" {
				continue
			}
			cols := columns(ind, s.width)
			var nb string
			if s.tabs {
				nb = strings.Repeat("\t", cols/s.width) + strings.Repeat(" ", cols%s.width)
			} else {
				nb = strings.Repeat(" ", cols)
			}
			lines[i] = nb + l[len(ind):]
		}
		text = strings.Join(lines, "")
	}
	return text
}

// curlify turns straight quotes into typographic ones: opening after
// whitespace or an opening bracket, closing (or apostrophe) otherwise.
func curlify(text string, single, double bool) string {
	var b strings.Builder
	prev := rune(' ')
	for _, r := range text {
		open := prev == ' ' || prev == '\t' || prev == '\n' || prev == '(' || prev == '[' || prev == '{' || prev == '\u00a0'
		switch {
		case r == '\'' && single && open:
			b.WriteRune('‘')
		case r == '\'' && single:
			b.WriteRune('’')
		case r == '"' && double && open:
			b.WriteRune('“')
		case r == '"' && double:
			b.WriteRune('”')
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

func leadingBlanks(l string) string {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return l[:i]
}

// columns is the display width of an indentation with tab stops of w.
func columns(ind string, w int) int {
	c := 0
	for _, r := range ind {
		if r == '\t' {
			c += w - c%w
		} else {
			c++
		}
	}
	return c
}

// indentWidth finds a tab width under which every line of old is indented
// exactly like the matching line of the file, so a tolerant indentation
// match cannot shift code to another nesting level.
func indentWidth(oLines, rLines []string) (int, bool) {
	for _, w := range []int{4, 8, 2, 3, 1} {
		ok := true
		for i := range oLines {
			if strings.TrimSpace(oLines[i]) == "" || strings.TrimSpace(rLines[i]) == "" {
				continue
			}
			if i == 0 && leadingBlanks(oLines[0]) == "" {
				continue // the match may start mid-line
			}
			if columns(leadingBlanks(oLines[i]), w) != columns(leadingBlanks(rLines[i]), w) {
				ok = false
				break
			}
		}
		if ok {
			return w, true
		}
	}
	return 0, false
}

// fileIndentsWithTabs reports whether most indented lines start with a tab.
func fileIndentsWithTabs(content string) bool {
	tabs, spaces := 0, 0
	for _, l := range strings.Split(content, "\n") {
		switch {
		case strings.HasPrefix(l, "\t"):
			tabs++
		case strings.HasPrefix(l, "  "):
			spaces++
		}
	}
	return tabs > spaces
}
