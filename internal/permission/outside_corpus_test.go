package permission

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// outsideCase is one line of shellparse/testdata/outside_corpus.txt.
type outsideCase struct {
	class, label, cmd string
	line              int
}

func loadOutsideCorpus(t *testing.T) []outsideCase {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "shellparse", "testdata", "outside_corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []outsideCase
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 || parts[1] != "D" && parts[1] != "O" {
			t.Fatalf("outside_corpus.txt:%d: malformed line %q", n, line)
		}
		out = append(out, outsideCase{class: parts[0], label: parts[1], cmd: parts[2], line: n})
	}
	return out
}

// TestOutsideCorpus runs the corpus drawn from other agents' safety suites
// through the engine in every mode a question can arise in, and prints the
// per-class figures. Targets (issue 10): every dangerous case asks or denies
// in default and acceptEdits and denies in dontAsk and plan, and never passes
// auto's static screen; at most 3 % of ordinary development commands ask
// while the sandbox is active.
func TestOutsideCorpus(t *testing.T) {
	f := newFixture(t, "")
	for _, d := range []string{"src", "internal", "scripts", "bin", "dist", "build", "web", "docs", "templates"} {
		if err := os.MkdirAll(filepath.Join(f.root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	on, off := f.engine(t, sandboxed), f.engine(t)
	cases := loadOutsideCorpus(t)
	type tally struct{ n, held, denied, planDenied, autoScreened, asked, askedNoSandbox int }
	per := map[string]*tally{}
	var dTotal, oTotal, oAsked int
	for _, c := range cases {
		tl := per[c.class]
		if tl == nil {
			tl = &tally{}
			per[c.class] = tl
		}
		tl.n++
		check := func(e *Engine, m Mode) Verdict {
			return e.Check(Request{Tool: ToolShell, Input: shell(c.cmd), Mode: m})
		}
		def, acc, dont, plan, auto := check(on, ModeDefault), check(on, ModeAcceptEdits), check(on, ModeDontAsk), check(on, ModePlan), check(on, ModeAuto)
		if c.label == "D" {
			dTotal++
			if def.Decision != Allow && acc.Decision != Allow {
				tl.held++
			} else {
				t.Errorf("outside_corpus.txt:%d [%s] dangerous allowed in default/acceptEdits: %s (%s / %s)", c.line, c.class, c.cmd, def.Reason, acc.Reason)
			}
			if dont.Decision == Deny {
				tl.denied++
			} else {
				t.Errorf("outside_corpus.txt:%d [%s] dontAsk did not deny: %s → %s (%s)", c.line, c.class, c.cmd, dont.Decision, dont.Reason)
			}
			if plan.Decision == Deny {
				tl.planDenied++
			} else {
				t.Errorf("outside_corpus.txt:%d [%s] plan did not deny: %s → %s (%s)", c.line, c.class, c.cmd, plan.Decision, plan.Reason)
			}
			if auto.Decision != Allow {
				tl.autoScreened++
			} else {
				t.Errorf("outside_corpus.txt:%d [%s] auto passed it without the classifier: %s", c.line, c.class, c.cmd)
			}
			continue
		}
		oTotal++
		if def.Decision != Allow {
			tl.asked++
			oAsked++
			t.Logf("outside_corpus.txt:%d [%s] ordinary command asks: %s → %s", c.line, c.class, c.cmd, def.Reason)
		}
		if v := check(off, ModeDefault); v.Decision != Allow {
			tl.askedNoSandbox++
		}
	}
	classes := make([]string, 0, len(per))
	for k := range per {
		classes = append(classes, k)
	}
	sort.Strings(classes)
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %5s  %-38s %s\n", "class", "cases", "dangerous: held default+acceptEdits / dontAsk deny / plan deny / auto screened", "ordinary: asking (sandbox on / off)")
	for _, k := range classes {
		tl := per[k]
		if tl.held+tl.denied+tl.planDenied+tl.autoScreened > 0 || tl.n > 0 && tl.asked+tl.askedNoSandbox == 0 && isDangerClass(cases, k) {
			fmt.Fprintf(&b, "%-12s %5d  %d/%d / %d/%d / %d/%d / %d/%d\n", k, tl.n, tl.held, tl.n, tl.denied, tl.n, tl.planDenied, tl.n, tl.autoScreened, tl.n)
		} else {
			fmt.Fprintf(&b, "%-12s %5d  ordinary: %d/%d ask with the sandbox, %d/%d without\n", k, tl.n, tl.asked, tl.n, tl.askedNoSandbox, tl.n)
		}
	}
	fmt.Fprintf(&b, "dangerous cases: %d; ordinary cases: %d, asking with the sandbox active: %d (%.1f%%)", dTotal, oTotal, oAsked, 100*float64(oAsked)/float64(max(oTotal, 1)))
	t.Log("\n" + b.String())
	if dTotal < 300 || oTotal < 150 {
		t.Errorf("corpus too small: %d dangerous, %d ordinary", dTotal, oTotal)
	}
	if float64(oAsked) > 0.03*float64(oTotal) {
		t.Errorf("%d of %d ordinary commands ask (%.1f%%), target at most 3%%", oAsked, oTotal, 100*float64(oAsked)/float64(oTotal))
	}
}

func isDangerClass(cases []outsideCase, class string) bool {
	for _, c := range cases {
		if c.class == class {
			return c.label == "D"
		}
	}
	return false
}
