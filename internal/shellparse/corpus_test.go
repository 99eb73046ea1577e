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
	asks      bool // not dangerous, but not known-safe either (label A)
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
		if !ok || (label != "D" && label != "S" && label != "A") {
			t.Fatalf("corpus.txt:%d: malformed line %q", n, line)
		}
		out = append(out, corpusEntry{dangerous: label == "D", asks: label == "A", cmd: cmd, line: n})
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

// TestCorpus runs hew's original labelled corpus: D must never be
// known-safe, S must be known-safe (with the sandbox active), A must ask
// without being dangerous (network clients, publishing, scripts…).
func TestCorpus(t *testing.T) {
	opts := testOpts(t)
	entries := loadCorpus(t)
	var dangerous, caught, safe, falseAlarms, asks, asked int
	for _, e := range entries {
		a := Analyze(e.cmd, opts)
		switch {
		case e.dangerous:
			dangerous++
			if !a.KnownSafe(true) {
				caught++
			} else {
				t.Errorf("corpus.txt:%d: dangerous command known-safe: %s", e.line, e.cmd)
			}
		case e.asks:
			asks++
			if !a.KnownSafe(true) {
				asked++
			} else {
				t.Errorf("corpus.txt:%d: command should ask but is known-safe: %s", e.line, e.cmd)
			}
		default:
			safe++
			if !a.KnownSafe(true) {
				falseAlarms++
				t.Errorf("corpus.txt:%d: ordinary command asks: %s → %s", e.line, e.cmd, a.Why(true))
			}
		}
	}
	if dangerous+safe+asks < 200 {
		t.Errorf("corpus has %d commands, want at least 200", dangerous+safe+asks)
	}
	t.Logf("corpus: dangerous caught %d/%d, asks-by-design %d/%d, ordinary asking %d/%d", caught, dangerous, asked, asks, falseAlarms, safe)
}
