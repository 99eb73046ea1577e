package tools

import (
	"fmt"
	"strings"
	"unicode"
)

// appliedInPlace reports whether new already stands where old's context
// says it would: old and new share a head and a tail (each with some
// non-blank text), and that head, new's changed middle and that tail sit
// together in the file. A new_string that merely occurs somewhere (a
// "return err" elsewhere in the file) proves nothing and is not reported.
// It is checked exactly and under each tolerant stage.
func appliedInPlace(content, old, new string) (line int, how string, ok bool) {
	try := func(c, o, n string) (int, bool) {
		if n == "" {
			return 0, false
		}
		pre := commonPrefixLen(o, n)
		suf := commonSuffixLen(o[pre:], n[pre:])
		if !hasNonBlank(n[:pre]) || !hasNonBlank(n[len(n)-suf:]) {
			return 0, false
		}
		i := strings.Index(c, n)
		return i, i >= 0
	}
	for _, n := range uniqueStrings(new, toLF(new), toCRLF(new)) {
		if i, ok := try(content, old, n); ok {
			return lineOf(content, i), "", true
		}
	}
	for _, st := range fallbackStages {
		nc := normalize(content, st.flags)
		if i, ok := try(nc.s, normalize(old, st.flags).s, normalize(new, st.flags).s); ok {
			return lineOf(content, nc.own[i]), " (ignoring " + st.name + ")", true
		}
	}
	return 0, "", false
}

func commonPrefixLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffixLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

func hasNonBlank(s string) bool { return strings.TrimFunc(s, unicode.IsSpace) != "" }

// notFound explains a missing old_string with the nearest candidate in the
// file (the same first line with other whitespace, or the most similar
// line) and says so when new_string already occurs somewhere, without
// claiming that the edit was made.
func notFound(content, old, new string) error {
	msg := "old_string not found — re-read the file with read_file and copy the exact text, including indentation and whitespace"
	first := firstNonBlankLine(old)
	lines := strings.Split(content, "\n")
	found := false
	newAt := -1
	if t := strings.TrimSpace(new); t != "" && strings.Contains(content, t) {
		newAt = lineOf(content, strings.Index(content, t))
	}
	if first != "" {
		for i, l := range lines {
			if strings.TrimSpace(l) == first {
				if strings.Contains(strings.TrimSpace(old), "\n") {
					msg += fmt.Sprintf(" (its first line appears at line %d; the lines after it differ)", i+1)
				} else {
					msg += fmt.Sprintf(" (line %d has the same text with different whitespace around it)", i+1)
				}
				found = true
				break
			}
		}
		if !found {
			if i, score := mostSimilarLine(lines, first); score >= 0.6 && i+1 != newAt {
				msg += fmt.Sprintf(" (the nearest candidate is line %d: %q)", i+1, shorten(strings.TrimSpace(lines[i]), 120))
			}
		}
	}
	if newAt > 0 {
		msg += fmt.Sprintf("; new_string already occurs at line %d, but nothing around it shows it replaced old_string there: if that line is the change you meant, it is already made (re-read to confirm), otherwise nothing was changed", newAt)
	}
	return &EditError{Kind: EditNotFound, Msg: msg}
}

// mostSimilarLine finds the line sharing most character pairs with want
// (Dice coefficient of byte bigrams), for a "did you mean" hint; large
// files are scanned up to 20,000 lines.
func mostSimilarLine(lines []string, want string) (int, float64) {
	wb := bigrams(want)
	if len(wb) == 0 {
		return 0, 0
	}
	best, bestScore := 0, 0.0
	for i, l := range lines {
		if i == 20000 {
			break
		}
		t := strings.TrimSpace(l)
		if t == "" || len(t) > 4*len(want)+8 {
			continue
		}
		lb := bigrams(t)
		shared := 0
		for g, n := range lb {
			shared += min(n, wb[g])
		}
		total := 0
		for _, n := range lb {
			total += n
		}
		for _, n := range wb {
			total += n
		}
		if s := 2 * float64(shared) / float64(total); s > bestScore {
			best, bestScore = i, s
		}
	}
	return best, bestScore
}

func bigrams(s string) map[string]int {
	m := map[string]int{}
	for i := 0; i+2 <= len(s); i++ {
		m[s[i:i+2]]++
	}
	return m
}
