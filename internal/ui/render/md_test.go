package render

import (
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/agent"
)

// screen is a small terminal emulator for the renderer's output: it
// understands what the renderer sends (text, CR, LF, cursor up, erase to
// the end of the line or screen, colours) and wraps at width, so goldens
// show what a person would see, and a wrong row count in an erase shows up
// as leftover or missing text.
type screen struct {
	width int
	rows  [][]string // each cell: a grapheme, or "" after a wide one
	x, y  int
}

func (sc *screen) row(y int) []string {
	for len(sc.rows) <= y {
		sc.rows = append(sc.rows, nil)
	}
	return sc.rows[y]
}

func (sc *screen) put(g string, w int) {
	if sc.x+w > sc.width {
		sc.x, sc.y = 0, sc.y+1
	}
	r := sc.row(sc.y)
	for len(r) < sc.x+w {
		r = append(r, " ")
	}
	r[sc.x] = g
	if w == 2 {
		r[sc.x+1] = ""
	}
	sc.rows[sc.y] = r
	sc.x += w
}

func (sc *screen) write(s string) {
	for len(s) > 0 {
		switch {
		case s[0] == '\r':
			sc.x = 0
			s = s[1:]
		case s[0] == '\n':
			sc.x, sc.y = 0, sc.y+1
			sc.row(sc.y)
			s = s[1:]
		case s[0] == '\a':
			s = s[1:]
		case s[0] == 0x1b:
			n := escapeLen(s)
			seq := s[:n]
			s = s[n:]
			if len(seq) < 3 || seq[1] != '[' {
				continue
			}
			arg, fin := seq[2:len(seq)-1], seq[len(seq)-1]
			count := 1
			if arg != "" && fin != 'm' && fin != 'J' && fin != 'K' {
				count = 0
				for _, c := range arg {
					count = count*10 + int(c-'0')
				}
			}
			switch fin {
			case 'A':
				sc.y = max(sc.y-count, 0)
			case 'J':
				sc.rows = sc.rows[:min(sc.y+1, len(sc.rows))]
				sc.clearRow()
			case 'K':
				sc.clearRow()
			}
		default:
			tok, w, _ := nextToken(s)
			sc.put(tok, w)
			s = s[len(tok):]
		}
	}
}

func (sc *screen) clearRow() {
	r := sc.row(sc.y)
	if sc.x < len(r) {
		sc.rows[sc.y] = r[:sc.x]
	}
}

func (sc *screen) String() string {
	var b strings.Builder
	for _, r := range sc.rows {
		b.WriteString(strings.TrimRight(strings.Join(r, ""), " "))
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

const mdSample = "# Release notes\n\n" +
	"This paragraph is long enough to wrap on every terminal width we test, and it must break between words, never inside one: internationalisation, configuration, and `inline code` included. See [the guide](https://example.com/guide) for more.\n\n" +
	"中文段落也需要正确换行：每个汉字占两列，换行时不能把一个字拆成两半，也不能在标点之前断开太多次，这一段足够长可以测试。\n\n" +
	"| Name | 説明 | Size |\n|:-----|------|-----:|\n| parser | 構文解析 | 12 KB |\n| renderer with a long name | 描画 | 3 KB |\n\n" +
	"- a list item that is long enough to wrap onto a second row and keep its hanging indent aligned under the text\n" +
	"- short\n\n" +
	"```go\nfunc main() {\n\t// say hi\n\tfmt.Println(\"hi\", 42)\n}\n```\n" +
	"> a quoted remark\n" +
	"Done."

// streamMarkdown renders text as a model would stream it, in pieces of n
// bytes (cut anywhere, even inside a character), through the screen.
func streamMarkdown(t *testing.T, width int, text string, n int) *screen {
	t.Helper()
	h := newHarness(t, mode{"color", true, true}, width, Options{})
	sc := &screen{width: width}
	h.emit(agent.TurnStarted{}, agent.RequestStarted{})
	for i := 0; i < len(text); i += n {
		h.emit(agent.TextDelta{Text: text[i:min(i+n, len(text))]})
		sc.write(h.out.String())
		h.out.Reset()
	}
	h.emit(agent.TurnEnded{Result: agent.TurnResult{StopReason: agent.StopCompleted}})
	sc.write(h.out.String())
	return sc
}

func TestMarkdownScreens(t *testing.T) {
	for _, width := range []int{80, 120} {
		t.Run(itoa(width), func(t *testing.T) {
			got := streamMarkdown(t, width, mdSample, 7).String()
			golden(t, "markdown_"+itoa(width), got)
			for i, l := range strings.Split(got, "\n") {
				if w := Width(l); w > width {
					t.Errorf("row %d is %d columns wide (> %d): %q", i, w, width, l)
				}
			}
			// The same text streamed in other pieces looks the same.
			if other := streamMarkdown(t, width, mdSample, 1).String(); other != got {
				t.Errorf("streaming byte by byte gives another screen:\n%s", other)
			}
		})
	}
}

func TestWrapText(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"one two three four", 9, "one two|three|four"},
		{"averyveryverylongword x", 8, "averyver|yverylon|gword x"},
		{"漢字漢字漢字", 7, "漢字漢|字漢字"}, // between characters, never inside one
		{"a 漢字", 4, "a 漢|字"},
		{"e\u0301e\u0301e\u0301e\u0301e\u0301", 4, "e\u0301e\u0301e\u0301e\u0301|e\u0301"},
		{"\x1b[1mbold words\x1b[22m here", 6, "\x1b[1mbold|words\x1b[22m|here"},
	}
	for _, tt := range tests {
		got := strings.Join(wrapText(tt.in, tt.width, "", 0, "", 0), "|")
		if got != tt.want {
			t.Errorf("wrapText(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

func TestTableAlignsWideCharacters(t *testing.T) {
	rows, ok := renderTable([]string{"| a | b |", "|---|--:|", "| テスト | 1 |", "| x | 22 |"}, styles{}, 80)
	if !ok {
		t.Fatal("not a table")
	}
	want := []string{
		"┌────────┬────┐",
		"│ a      │  b │",
		"├────────┼────┤",
		"│ テスト │  1 │",
		"│ x      │ 22 │",
		"└────────┴────┘",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("table:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if _, ok := renderTable([]string{"| not | a table |", "| just | pipes |"}, styles{}, 80); ok {
		t.Error("rows without a separator were drawn as a table")
	}
	narrow, _ := renderTable([]string{"| key | a long description of the thing |", "|--|--|", "| k | some words that must wrap inside the cell |"}, styles{}, 30)
	for _, r := range narrow {
		if Width(r) > 30 {
			t.Errorf("row wider than 30: %q", r)
		}
	}
}

func TestRetryTakesBackVoidText(t *testing.T) {
	h := newHarness(t, mode{"color", true, true}, 60, Options{})
	sc := &screen{width: 60}
	h.emit(agent.TurnStarted{}, agent.RequestStarted{},
		agent.TextDelta{Text: "First attempt line one\nand a half line"},
		agent.Retrying{Attempt: 1, Reason: "stream cut"},
		agent.RequestStarted{},
		agent.TextDelta{Text: "Second attempt, complete.\n"},
		agent.TurnEnded{Result: agent.TurnResult{StopReason: agent.StopCompleted}})
	sc.write(h.out.String())
	got := sc.String()
	if strings.Contains(got, "First attempt") || !strings.Contains(got, "Second attempt, complete.") {
		t.Errorf("screen after a retry:\n%s", got)
	}
}

func TestThinkingCollapsedToOneLine(t *testing.T) {
	h := newHarness(t, mode{"color", true, true}, 40, Options{})
	sc := &screen{width: 40}
	h.emit(agent.TurnStarted{}, agent.RequestStarted{},
		agent.ThinkingDelta{Text: "Let me think about\nthe problem. "},
		agent.ThinkingDelta{Text: "It has several parts that need care and attention."},
		agent.TextDelta{Text: "Answer.\n"},
		agent.TurnEnded{Result: agent.TurnResult{StopReason: agent.StopCompleted}})
	sc.write(h.out.String())
	want := "✻ …parts that need care and attention.\nAnswer.\n"
	if got := sc.String(); got != want {
		t.Errorf("screen:\n%q\nwant:\n%q", got, want)
	}
	if !strings.Contains(h.out.String(), "\x1b[2m✻") {
		t.Error("thinking is not dimmed")
	}
}
