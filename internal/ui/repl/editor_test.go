package repl

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/core"
)

func TestDecodeKey(t *testing.T) {
	tests := []struct {
		in    string
		final bool
		want  key
		n     int
	}{
		{"a", false, key{kind: kRune, r: 'a'}, 1},
		{"テ", false, key{kind: kRune, r: 'テ'}, 3},
		{"\xe3\x83", false, key{}, 0}, // half a character: wait
		{"\r", false, key{kind: kEnter}, 1},
		{"\n", false, key{kind: kNewline}, 1},
		{"\x1b\r", false, key{kind: kNewline}, 2},         // Alt+Enter
		{"\x1b[13;2u", false, key{kind: kNewline}, 7},     // Shift+Enter, CSI u
		{"\x1b[27;2;13~", false, key{kind: kNewline}, 10}, // Shift+Enter, modifyOtherKeys
		{"\x1b[Z", false, key{kind: kShiftTab}, 3},
		{"\x1b[A", false, key{kind: kUp}, 3},
		{"\x1bOD", false, key{kind: kLeft}, 3},
		{"\x1b[1;5C", false, key{kind: kWordRight}, 6},
		{"\x1b[3~", false, key{kind: kDelete}, 4},
		{"\x1b[1~", false, key{kind: kHome}, 4},
		{"\x1b[F", false, key{kind: kEnd}, 3},
		{"\x1b", false, key{}, 0},          // maybe the start of a sequence
		{"\x1b", true, key{kind: kEsc}, 1}, // nothing followed: Esc
		{"\x1b[", false, key{}, 0},
		{"\x1b[200~a\rb", false, key{}, 0}, // paste not finished
		{"\x1b[200~a\r\nb\rc\x1b[201~x", false, key{kind: kPaste, text: "a\nb\nc"}, 18},
		{"\x03", false, key{kind: kCtrl, r: 'c'}, 1},
		{"\x0f", false, key{kind: kCtrl, r: 'o'}, 1},
		{"\x7f", false, key{kind: kBackspace}, 1},
		{"\x1b\x7f", false, key{kind: kWordDelete}, 2},
		{"\x1b[I", false, key{}, 3}, // focus report: ignored
	}
	for _, tt := range tests {
		got, n := decodeKey([]byte(tt.in), tt.final)
		if got != tt.want || n != tt.n {
			t.Errorf("decodeKey(%q, %v) = %+v, %d; want %+v, %d", tt.in, tt.final, got, n, tt.want, tt.n)
		}
	}
}

func FuzzDecodeKey(f *testing.F) {
	for _, s := range []string{"a", "\x1b[200~x\x1b[201~", "\x1b[1;5C", "テ", "\x1b\x1b["} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, final bool) {
		_, n := decodeKey(b, final)
		if n < 0 || n > len(b) || final && len(b) > 0 && n == 0 && !strings.HasPrefix(string(b), pasteStart) {
			t.Fatalf("decodeKey(%q, %v) used %d bytes", b, final, n)
		}
	})
}

func TestLayoutLine(t *testing.T) {
	tests := []struct {
		name   string
		buf    string
		pos    int
		width  int
		rows   []string
		cr, cc int
	}{
		{"plain", "hello", 5, 20, []string{"› hello"}, 0, 7},
		{"cursor mid", "ab", 1, 20, []string{"› ab"}, 0, 3},
		{"CJK measured", "テab", 1, 20, []string{"› テab"}, 0, 4},
		// 2 (prompt) + 4 wide chars = 10 columns: the fifth goes down whole.
		{"wide wraps whole", "一二三四五", 5, 11, []string{"› 一二三四", "五"}, 1, 2},
		{"exact fill puts cursor below", "abcd", 4, 6, []string{"› abcd", ""}, 1, 0},
		{"newline continues indented", "one\ntwo", 7, 20, []string{"› one", "  two"}, 1, 5},
		{"combining mark is one column", "e\u0301x", 2, 20, []string{"› e\u0301x"}, 0, 3},
		{"emoji is two columns", "👍x", 1, 20, []string{"› 👍x"}, 0, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := layoutLine("› ", 2, []rune(tt.buf), tt.pos, tt.width)
			if strings.Join(l.rows, "|") != strings.Join(tt.rows, "|") || l.curRow != tt.cr || l.curCol != tt.cc {
				t.Errorf("rows %q cursor (%d,%d); want %q (%d,%d)", l.rows, l.curRow, l.curCol, tt.rows, tt.cr, tt.cc)
			}
			for i, r := range l.rows {
				if w := visibleWidth(r); w > tt.width || w != l.widths[i] {
					t.Errorf("row %d %q is %d columns (recorded %d, width %d)", i, r, w, l.widths[i], tt.width)
				}
			}
		})
	}
}

func TestRowsAfterReflow(t *testing.T) {
	if got := rowsAfterReflow([]int{100, 30, 0}, 80); got != 4 {
		t.Errorf("rows = %d, want 4 (100 columns spill onto a second row)", got)
	}
}

// keysOf turns text into keys; "⟨name⟩" are special keys.
func keysOf(parts ...any) []key {
	var out []key
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			for _, r := range v {
				out = append(out, key{kind: kRune, r: r})
			}
		case key:
			out = append(out, v)
		case keyKind:
			out = append(out, key{kind: v})
		}
	}
	return out
}

func runEditor(t *testing.T, ed *editor, keys []key) (string, error) {
	t.Helper()
	next := func(ctx context.Context) (key, error) {
		if len(keys) == 0 {
			return key{}, io.EOF
		}
		k := keys[0]
		keys = keys[1:]
		return k, nil
	}
	return ed.readLine(context.Background(), "› ", next, nil)
}

func TestEditorEditing(t *testing.T) {
	tests := []struct {
		name string
		keys []key
		want string
	}{
		{"CJK inserted mid-line", keysOf("ab", kHome, "テ", "X", kEnter), "テXab"},
		{"CJK at start, middle, end", keysOf("世界", kHome, "a", kEnd, "b", kLeft, kLeft, "中", kEnter), "a世中界b"},
		{"backspace removes a whole wide char", keysOf("a世b", kLeft, kBackspace, kEnter), "ab"},
		{"delete under the cursor", keysOf("a世b", kHome, kRight, kDelete, kEnter), "ab"},
		{"combining mark deleted with its base", keysOf("xe\u0301", kBackspace, kEnter), "x"},
		{"cursor skips a combining cluster", keysOf("e\u0301", kLeft, "a", kEnter), "ae\u0301"},
		{"emoji", keysOf("a👍b", kLeft, kBackspace, kEnter), "ab"},
		{"Ctrl+J newline", keysOf("one", kNewline, "two", kEnter), "one\ntwo"},
		{"backslash Enter newline", keysOf(`one\`, kEnter, "two", kEnter), "one\ntwo"},
		{"paste is one piece", []key{{kind: kPaste, text: "l1\nl2"}, {kind: kEnter}}, "l1\nl2"},
		{"Ctrl+U kills to line start", keysOf("abc", ctrl('u'), "d", kEnter), "d"},
		{"Ctrl+W deletes a word", keysOf("one two", ctrl('w'), kEnter), "one "},
		{"Ctrl+K", keysOf("abc", kHome, kRight, ctrl('k'), kEnter), "a"},
		{"word moves", keysOf("one two", kWordLeft, "X", kEnter), "one Xtwo"},
		{"up moves between lines", keysOf("ab", kNewline, "cd", kUp, "X", kEnter), "abX\ncd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			ed := &editor{out: &out, width: func() int { return 40 }}
			got, err := runEditor(t, ed, tt.keys)
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestEditorHistoryAndSearch(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "h", "history")
	h, err := loadHistory(file)
	if err != nil {
		t.Fatal(err)
	}
	h.add("first line")
	h.add("second")
	h.add("second") // repeats are kept once
	h2, err := loadHistory(file)
	if err != nil || strings.Join(h2.entries, "|") != "first line|second" {
		t.Fatalf("reloaded %q, %v", h2.entries, err)
	}
	var out strings.Builder
	ed := &editor{out: &out, width: func() int { return 40 }, hist: h2}
	if got, _ := runEditor(t, ed, keysOf(kUp, kUp, kEnter)); got != "first line" {
		t.Errorf("Up Up = %q", got)
	}
	if got, _ := runEditor(t, ed, keysOf("draft", kUp, kDown, kEnter)); got != "draft" {
		t.Errorf("Up Down = %q, want the draft back", got)
	}
	if got, _ := runEditor(t, ed, keysOf(ctrl('r'), "fir", kEnter)); got != "first line" {
		t.Errorf("Ctrl+R fir = %q", got)
	}
	if got, _ := runEditor(t, ed, keysOf("keep", ctrl('r'), "zzz", kEsc, kEnter)); got != "keep" {
		t.Errorf("Ctrl+R cancelled = %q", got)
	}
	if got, err := runEditor(t, ed, keysOf("gone", ctrl('c'))); !errors.Is(err, errInterrupt) || got != "gone" {
		t.Errorf("Ctrl+C = %q, %v", got, err)
	}
	if _, err := runEditor(t, ed, keysOf(ctrl('d'))); !errors.Is(err, io.EOF) {
		t.Errorf("Ctrl+D = %v", err)
	}
}

func TestEditorNeverMovesDown(t *testing.T) {
	var out strings.Builder
	ed := &editor{out: &out, width: func() int { return 10 }}
	_, _ = runEditor(t, ed, keysOf("a long line that wraps 世界世界", kHome, "x", kEnd, kEnter))
	// Cursor down (CSI B / CSI E) does nothing on the bottom row, which is
	// what broke the old editor: rows start with CR LF instead.
	for _, bad := range []string{"\x1b[B", "\x1b[1B", "\x1b[E", "\x1b[6n"} {
		if strings.Contains(out.String(), bad) {
			t.Errorf("editor output has %q: %q", bad, out.String())
		}
	}
}

func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"main.go", "mod.txt", ".hidden"} {
		mustWrite(t, filepath.Join(dir, f), "x")
	}
	if err := os.Mkdir(filepath.Join(dir, "internal"), 0o755); err != nil {
		t.Fatal(err)
	}
	ag := newFakeAgent()
	ag.skills = []core.SkillCommand{{Name: "review"}}
	ss := &session{opts: Options{WorkDir: dir}, ag: ag}
	cases := []struct {
		in   string
		want string
	}{
		{"/he", "/help"},
		{"/re", "/resume|/remember|/rewind|/review"},
		{"look at @ma", "@main.go"},
		{"@m", "@main.go|@mod.txt"},
		{"@in", "@internal/"},
		{"@.h", "@.hidden"},
		{"plain wor", ""},
	}
	for _, c := range cases {
		_, got := ss.complete([]rune(c.in), len([]rune(c.in)))
		if strings.Join(got, "|") != c.want {
			t.Errorf("complete(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	var out strings.Builder
	ed := &editor{out: &out, width: func() int { return 40 }, complete: ss.complete}
	if got, _ := runEditor(t, ed, keysOf("/he", kTab, kEnter)); got != "/help " {
		t.Errorf("Tab on /he = %q", got)
	}
	if got, _ := runEditor(t, ed, keysOf("@in", kTab, kEnter)); got != "@internal/" {
		t.Errorf("Tab on @in = %q", got)
	}
	if got, _ := runEditor(t, ed, keysOf("@m", kTab, kTab, kEnter)); got != "@m" || !strings.Contains(out.String(), "@mod.txt") {
		t.Errorf("Tab Tab on @m = %q; listing shown: %v", got, strings.Contains(out.String(), "@mod.txt"))
	}
}

func TestAttachFiles(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "notes.md"), "line 1\nline 2\n")
	mustWrite(t, filepath.Join(dir, "big.log"), strings.Repeat("x", maxAttachBytes+1))
	mustWrite(t, filepath.Join(dir, "bin.dat"), "a\x00b")
	out, notes := attachFiles("summarise @notes.md, and @big.log and @bin.dat; ping @someone", dir, "")
	if !strings.Contains(out, "<attached-file path=\"notes.md\">\nline 1\nline 2\n</attached-file>") {
		t.Errorf("notes.md not attached:\n%s", out)
	}
	if strings.Contains(out, "xxxx") || strings.Contains(out, "a\x00b") {
		t.Errorf("an oversized or binary file was attached")
	}
	want := []string{"attached notes.md (2 lines, 14 B)", "not attached big.log: 256.0 KB is over the 256 KB limit (ask hew to read parts of it)", "not attached bin.dat: not a text file"}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
	if out, notes := attachFiles("email me @ home", dir, ""); out != "email me @ home" || len(notes) != 0 {
		t.Errorf("no file mentioned: %q %q", out, notes)
	}
	// ~/ is the home the REPL was given, not the process's.
	home := t.TempDir()
	mustWrite(t, filepath.Join(home, "todo.md"), "buy milk\n")
	if out, _ := attachFiles("see @~/todo.md", dir, home); !strings.Contains(out, "buy milk") {
		t.Errorf("@~/todo.md not attached from the given home:\n%s", out)
	}
	if got := completePath("~/to", "@", dir, home); len(got) != 1 || got[0] != "@~/todo.md" {
		t.Errorf("completing @~/to in the given home: %q", got)
	}
}
