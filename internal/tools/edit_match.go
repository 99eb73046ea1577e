package tools

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
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
// and a stage is accepted only when it matches once (or replaceAll),
// writing each replacement in its region's own style: its line endings,
// quotes and indentation, with the lines the edit does not change left
// byte for byte as they were. Overlapping occurrences count for ambiguity
// in every stage. An edit whose result is already in place is reported as
// EditAlreadyApplied instead of being doubled, but only when new stands
// where old's context says it would.
func applyEdit(content, old, new string, replaceAll bool) (editOutcome, error) {
	if old == "" {
		return editOutcome{}, &EditError{Kind: EditInvalid, Msg: "old_string is empty"}
	}
	if old == new {
		return editOutcome{}, &EditError{Kind: EditInvalid, Msg: "old_string and new_string are identical; nothing to change"}
	}
	if toLF(old) == toLF(new) {
		return editOutcome{}, &EditError{Kind: EditInvalid, Msg: "old_string and new_string differ only in line endings; nothing to change"}
	}
	if out, err, ok := tryStage(content, old, new, replaceAll, "exact", normFlags{}); ok {
		return out, err
	}
	for _, st := range fallbackStages {
		if !st.relevant(content) && !st.relevant(old) {
			continue
		}
		if out, err, ok := tryStage(content, old, new, replaceAll, st.name, st.flags); ok {
			return out, err
		}
	}
	if line, how, ok := appliedInPlace(content, old, new); ok {
		return editOutcome{}, &EditError{Kind: EditAlreadyApplied, Lines: []int{line},
			Msg: fmt.Sprintf("old_string was not found, but new_string is already in place at line %d%s, between the same surrounding text old_string has; the edit appears to be applied already, nothing changed", line, how)}
	}
	return editOutcome{}, notFound(content, old, new)
}

// toLF turns CRLF line endings into LF.
func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// toCRLF turns every line ending into CRLF.
func toCRLF(s string) string { return strings.ReplaceAll(toLF(s), "\n", "\r\n") }

// space is the text one stage searches: the content itself (exact) or its
// normalization, with the map back to content offsets.
type space struct {
	s     string
	norm  *normText
	exact bool
}

func (sp space) start(i int) int {
	if sp.exact {
		return i
	}
	return sp.norm.own[i]
}

// tryStage attempts one comparison: "exact" with zero flags, otherwise a
// tolerant one. ok=false means "no match at this stage, try the next".
func tryStage(content, old, new string, replaceAll bool, name string, f normFlags) (editOutcome, error, bool) {
	exact := name == "exact"
	var sp space
	var no, nn string
	var normOld *normText
	var newVariants []string
	if exact {
		sp = space{s: content, exact: true}
		no = old
		newVariants = uniqueStrings(new, toLF(new), toCRLF(new))
	} else {
		nc := normalize(content, f)
		o := normalize(old, f)
		if o.s == "" || (o.s == old && nc.s == content) {
			return editOutcome{}, nil, false
		}
		sp = space{s: nc.s, norm: &nc}
		no, normOld = o.s, &o
		nn = normalize(new, f).s
		newVariants = []string{nn}
	}
	hits := indexAllOverlapping(sp.s, no)
	if len(hits) == 0 {
		return editOutcome{}, nil, false
	}
	var fresh, covered []int
	for _, p := range hits {
		if coveredByAny(sp.s, p, no, newVariants) {
			covered = append(covered, p)
		} else {
			fresh = append(fresh, p)
		}
	}
	how := ""
	if !exact {
		how = " (ignoring " + name + ")"
	}
	lines := func(ps []int) []int {
		out := make([]int, len(ps))
		for i, p := range ps {
			out[i] = lineOf(content, sp.start(p))
		}
		return out
	}
	switch {
	case len(fresh) == 0:
		return editOutcome{}, &EditError{Kind: EditAlreadyApplied, Lines: lines(covered),
			Msg: fmt.Sprintf("new_string is already in place at line %d%s (old_string only occurs inside it); the edit appears to be applied already, nothing changed", lines(covered)[0], how)}, true
	case replaceAll:
	case len(fresh) == 1 && len(covered) > 0:
		all := lines(append(append([]int(nil), fresh...), covered...))
		sort.Ints(all)
		return editOutcome{}, &EditError{Kind: EditAmbiguous, Lines: all,
			Msg: fmt.Sprintf("old_string matches %d times (lines %s)%s and new_string is already in place at line %d; if the edit is already applied, stop; otherwise include more surrounding lines to pick one", len(hits), joinInts(all), how, lines(covered)[0])}, true
	case len(fresh) > 1 && exact:
		ls := lines(fresh)
		return editOutcome{}, &EditError{Kind: EditAmbiguous, Lines: ls,
			Msg: fmt.Sprintf("old_string matches %d times (lines %s%s); include more surrounding lines to make it unique, or set replace_all to true to change every occurrence", len(fresh), joinInts(ls), overlapNote(fresh, len(no)))}, true
	case len(fresh) > 1:
		ls := lines(fresh)
		return editOutcome{}, &EditError{Kind: EditAmbiguous, Lines: ls,
			Msg: fmt.Sprintf("old_string was not found exactly; ignoring %s it matches %d times (lines %s%s): copy the exact text from read_file output and include more surrounding lines, or set replace_all to true to change every occurrence", name, len(fresh), joinInts(ls), overlapNote(fresh, len(no)))}, true
	}
	var regions []editRegion

	next := 0 // replace_all takes non-overlapping occurrences, leftmost first
	for _, p := range fresh {
		if p < next {
			continue
		}
		next = p + len(no)
		start, end := p, p+len(no)
		if !exact {
			start, end = sp.norm.own[p], sp.norm.ownEnd[end-1]
			if normOld.st[0] < normOld.own[0] {
				start = sp.norm.st[p] // old carried its own leading whitespace: take the file's
			}
			if normOld.en[len(no)-1] > normOld.ownEnd[len(no)-1] {
				end = sp.norm.en[p+len(no)-1]
			}
		}
		if len(regions) > 0 && start < regions[len(regions)-1].End {
			continue
		}
		repl, ok := transferStyle(content, start, end, old, new, f)
		if !ok {
			return editOutcome{}, nil, false
		}
		if repl == content[start:end] {

			continue
		}
		regions = append(regions, editRegion{Start: start, End: end, Replacement: repl})
	}
	if len(regions) == 0 {
		line := lineOf(content, sp.start(fresh[0]))
		return editOutcome{}, &EditError{Kind: EditAlreadyApplied, Lines: []int{line},
			Msg: fmt.Sprintf("the text at line %d already reads like new_string%s; nothing changed", line, how)}, true
	}

	return editOutcome{Content: splice(content, regions), Regions: regions, Stage: name}, nil, true
}

// overlapNote explains a count that includes overlapping occurrences,
// which a model counting by eye would miss.
func overlapNote(hits []int, n int) string {
	for i := 1; i < len(hits); i++ {
		if hits[i] < hits[i-1]+n {
			return "; some of them overlap"
		}
	}
	return ""
}

func uniqueStrings(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// coveredByAny reports whether the occurrence of old at p lies inside an
// occurrence of one of the spellings of new (so the edit was made there).
func coveredByAny(s string, p int, old string, news []string) bool {
	for _, n := range news {
		if coveredByNew(s, p, old, n) {
			return true
		}
	}
	return false
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

// indexAllOverlapping returns the start of every occurrence of sub,
// overlapping ones included: "}\n}\n" occurs twice in "}\n}\n}\n".
func indexAllOverlapping(s, sub string) []int {
	var out []int
	if sub == "" {
		return nil
	}
	for off := 0; off < len(s); {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			break
		}
		out = append(out, off+i)
		_, size := utf8.DecodeRuneInString(s[off+i:])
		off += i + max(size, 1)
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
