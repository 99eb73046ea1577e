package memory

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// CaptureAfter is how many failures of the same kind make a feedback memory.
const CaptureAfter = 2

// FailureCapture is the built-in PostToolUseFailure capture: when the same
// kind of tool failure repeats (the same program failing with the same
// error), it proposes a feedback memory with the evidence, so the next
// session starts knowing it. One memory per kind and session.
type FailureCapture struct {
	Q *Queue
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu     sync.Mutex
	counts map[string]int
	saved  map[string]bool
}

// Observe records one failed call. It reports whether a memory was
// proposed for it.
func (c *FailureCapture) Observe(tool string, input json.RawMessage, errText string) bool {
	subject := failureSubject(tool, input)
	sig := errorSignature(errText)
	if sig == "" || strings.HasPrefix(errText, "Action denied") {
		return false // denials are decisions, not failures to learn from
	}
	key := tool + "\x00" + subject.kind + "\x00" + sig
	c.mu.Lock()
	if c.counts == nil {
		c.counts, c.saved = map[string]int{}, map[string]bool{}
	}
	c.counts[key]++
	n := c.counts[key]
	if n < CaptureAfter || c.saved[key] {
		c.mu.Unlock()
		return false
	}
	c.saved[key] = true
	c.mu.Unlock()
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	name := fmt.Sprintf("%s %s fails: %s", tool, subject.kind, shortRunes(sig, 60))
	body := fmt.Sprintf("The same failure happened %d times in one session (%s).\n\nLast call: %s\nError excerpt:\n%s\n\nBefore running this again, check what the error asks for (a flag, a setup step, another command) and do that first.",
		n, now.UTC().Format("2006-01-02"), subject.call, excerpt(errText, 600))
	err := c.Q.Propose(Memory{
		Type:        "feedback",
		Name:        name,
		Description: fmt.Sprintf("%s %s repeatedly failed with %q", tool, subject.kind, shortRunes(sig, 80)),
		Body:        body,
		Source:      "failure capture (PostToolUseFailure): " + tool + ", " + now.UTC().Format("2006-01-02"),
	})
	return err == nil
}

type subject struct{ kind, call string }

// failureSubject names what failed: for run_shell the program (and its
// subcommand), for other tools the tool itself.
func failureSubject(tool string, input json.RawMessage) subject {
	var in struct {
		Command  string `json:"command"`
		FilePath string `json:"file_path"`
	}
	_ = json.Unmarshal(input, &in)
	if in.Command != "" {
		f := strings.Fields(in.Command)
		kind := ""
		for _, w := range f {
			if strings.Contains(w, "=") && kind == "" {
				continue // VAR=value prefixes
			}
			if kind != "" && (strings.HasPrefix(w, "-") || strings.ContainsAny(w, "/.|;&")) {
				break
			}
			if kind == "" {
				kind = w
			} else {
				kind += " " + w
				break
			}
		}
		return subject{kind: kind, call: shortRunes(in.Command, 300)}
	}
	return subject{kind: "", call: shortRunes(string(input), 300)}
}

// sigRegexps blank what changes between repeats of one failure; compiled
// on first use.
var sigRegexps = sync.OnceValue(func() [3]*regexp.Regexp {
	return [3]*regexp.Regexp{
		regexp.MustCompile(`(/[^\s:]+|\b0x[0-9a-f]+\b|\b\d+\b)`),    // paths, addresses, numbers
		regexp.MustCompile(`^(exit code \d+|command timed out.*)$`), // hew's own status lines
		regexp.MustCompile(`\s+`),
	}
})

// errorSignature reduces an error to what stays the same between
// repeats: its first meaningful line with paths and numbers blanked.
func errorSignature(errText string) string {
	re := sigRegexps()
	for _, line := range strings.Split(errText, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "Error:"))
		if line == "" || re[1].MatchString(line) {
			continue
		}
		line = re[0].ReplaceAllString(strings.ToLower(line), "_")
		return shortRunes(re[2].ReplaceAllString(strings.TrimSpace(line), " "), 120)
	}
	return ""
}

func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func shortRunes(s string, n int) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
