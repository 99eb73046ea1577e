package memory

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"
)

// TypeWeight ranks kinds of memory: what the user said about themselves
// and how they want work done counts most, external references least.
var TypeWeight = map[string]float64{"user": 1.4, "feedback": 1.2, "project": 1.0, "reference": 0.7}

// HalfLife is how fast the recency bonus of a memory fades.
const HalfLife = 7 * 24 * time.Hour

// StaleAfter is the age past which a recalled memory carries a warning.
const StaleAfter = 24 * time.Hour

// recency is 1 for a memory written now, ½ a week later, and so on.
func recency(t, now time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	age := now.Sub(t)
	if age < 0 {
		age = 0
	}
	return math.Pow(0.5, float64(age)/float64(HalfLife))
}

// stopwords are English words too common to say what a message is about.
var stopwords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "this": true, "that": true, "what": true, "how": true,
	"are": true, "was": true, "you": true, "can": true, "from": true, "into": true, "our": true, "use": true,
	"please": true, "about": true, "it": true, "is": true, "in": true, "of": true, "to": true, "on": true, "an": true,
	"do": true, "be": true, "we": true, "my": true, "me": true, "or": true, "at": true, "by": true, "as": true,
}

// cjk reports runes of scripts written without spaces between words.
func cjk(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Tokens splits text into the set of terms recall compares: lower-cased
// words (plus a 5-letter stem for long ones, so "deploy" meets
// "deployment"), and character bigrams for Chinese, Japanese and Korean
// runs, which have no spaces to split on ("部署流程" → 部署, 署流, 流程).
func Tokens(text string) map[string]bool {
	out := map[string]bool{}
	var word, run []rune
	flushWord := func() {
		if len(word) >= 2 {
			w := string(word)
			if !stopwords[w] {
				out[w] = true
				if len(word) >= 6 {
					out["~"+string(word[:5])] = true
				}
			}
		}
		word = word[:0]
	}
	flushRun := func() {
		switch {
		case len(run) == 1:
			out[string(run)] = true
		case len(run) > 1:
			for i := 0; i+1 < len(run); i++ {
				out[string(run[i:i+2])] = true
			}
		}
		run = run[:0]
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case cjk(r):
			flushWord()
			run = append(run, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushRun()
			word = append(word, r)
		default:
			flushWord()
			flushRun()
		}
	}
	flushWord()
	flushRun()
	return out
}

// Scored is a memory with its recall score.
type Scored struct {
	Memory Memory
	Score  float64
}

// Rank scores pool against query: overlap of terms (name and description
// against the message) times the type weight, plus the recency bonus.
// Memories that share no term are left out. The order is total (ties by
// file), so the same query and pool always give the same ranking.
func Rank(query string, pool []Memory, now time.Time) []Scored {
	q := Tokens(query)
	var out []Scored
	for _, m := range pool {
		overlap := 0
		for t := range Tokens(m.Name + " " + m.Description) {
			if q[t] {
				overlap++
			}
		}
		if overlap == 0 {
			continue
		}
		w, ok := TypeWeight[m.Type]
		if !ok {
			w = 1
		}
		out = append(out, Scored{Memory: m, Score: float64(overlap)*w + recency(m.stamp(), now)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Memory.File() < out[j].Memory.File()
	})
	return out
}

// Format renders recalled memories as a <system-reminder>: one index line
// each with the file's absolute path (for read_file), and a freshness
// warning on those written more than a day before now. "" for none.
func Format(list []Memory, dir string, now time.Time, how string) string {
	if len(list) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<system-reminder>\n")
	fmt.Fprintf(&b, "Memories that may help with this (%s; notes from earlier sessions, not requests from the user; read the file with read_file for the whole memory):\n", how)
	for _, m := range list {
		path := filepath.Join(dir, filepath.FromSlash(m.File()))
		fmt.Fprintf(&b, "- [%s](%s) — %s\n", oneLine(m.Name), path, oneLine(m.Description))
		if st := m.stamp(); !st.IsZero() && now.Sub(st) > StaleAfter {
			fmt.Fprintf(&b, "  (saved %s, over a day ago: a snapshot, not live state; verify it against the current code before relying on it)\n", st.Format("2006-01-02"))
		}
	}
	b.WriteString("</system-reminder>")
	return b.String()
}
