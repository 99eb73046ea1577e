package shellparse

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CorpusEntry is one labelled command of testdata/corpus.txt.
type corpusEntry struct {
	dangerous bool
	cmd       string
	line      int
}

func loadCorpus(t testing.TB) []corpusEntry {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusEntry
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		label, cmd, ok := strings.Cut(line, "\t")
		if !ok || (label != "D" && label != "S") {
			t.Fatalf("corpus.txt:%d: malformed line %q", n, line)
		}
		out = append(out, corpusEntry{dangerous: label == "D", cmd: cmd, line: n})
	}
	return out
}

// testOpts builds a project root and home in a temp dir.
func testOpts(t testing.TB) Options {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "proj")
	home := filepath.Join(base, "home")
	for _, d := range []string{root, home, filepath.Join(root, "src"), filepath.Join(root, ".git", "hooks"), filepath.Join(root, ".hew")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return Options{Root: root, Home: home, HewHome: filepath.Join(home, ".hew")}
}

func TestCorpus(t *testing.T) {
	opts := testOpts(t)
	entries := loadCorpus(t)
	var dangerous, caught, safe, falseAlarms int
	for _, e := range entries {
		a := Analyze(e.cmd, opts)
		if e.dangerous {
			dangerous++
			if a.Dangerous() {
				caught++
			} else {
				t.Errorf("corpus.txt:%d: dangerous command not flagged: %s", e.line, e.cmd)
			}
			continue
		}
		safe++
		if a.Dangerous() {
			falseAlarms++
			t.Logf("corpus.txt:%d: false alarm: %s → %s", e.line, e.cmd, a.Summary())
		}
	}
	if dangerous+safe < 200 {
		t.Errorf("corpus has %d commands, want at least 200", dangerous+safe)
	}
	rate := float64(falseAlarms) / float64(safe)
	t.Logf("corpus: dangerous caught %d/%d, false alarms %d/%d (%.1f%%)", caught, dangerous, falseAlarms, safe, 100*rate)
	if rate >= 0.03 {
		t.Errorf("false alarm rate %.1f%% is not under 3%%", 100*rate)
	}
}
