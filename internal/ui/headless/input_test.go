package headless

import (
	"strings"
	"testing"
)

func TestParseInputLine(t *testing.T) {
	for _, tc := range []struct{ line, text, err string }{
		{`{"type":"user","message":{"role":"user","content":"hi"}}`, "hi", ""},
		{`{"type":"user","message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}`, "a\nb", ""},
		{`{"type":"assistant","message":{"content":"x"}}`, "", `only "user"`},
		{`{"type":"user","message":{"role":"assistant","content":"x"}}`, "", "want \"user\""},
		{`{"type":"user","message":{"content":"  "}}`, "", "empty"},
		{`{"type":"user","message":{"content":[{"type":"image"}]}}`, "", "not supported"},
		{`{"type":"user","message":{"content":5}}`, "", "must be a string"},
		{`not json`, "", "not a JSON object"},
	} {
		text, err := parseInputLine([]byte(tc.line))
		if text != tc.text || (tc.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %q %v, want %q %q", tc.line, text, err, tc.text, tc.err)
		}
	}
}

func FuzzParseInputLine(f *testing.F) {
	f.Add(`{"type":"user","message":{"content":"hi"}}`)
	f.Add(`{"type":"user","message":{"content":[{"type":"text","text":"a"}]}}`)
	f.Fuzz(func(t *testing.T, s string) {
		text, err := parseInputLine([]byte(s))
		if err == nil && strings.TrimSpace(text) == "" {
			t.Fatalf("%q: empty text accepted", s)
		}
	})
}
