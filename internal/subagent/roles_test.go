package subagent

import (
	"testing"
)

func TestParseVerdict(t *testing.T) {
	tests := map[string]string{
		"all good\nVERDICT: PASS":                      VerdictPass,
		"VERDICT: PASS\nthen broke\n**VERDICT: FAIL**": VerdictFail,
		"- VERDICT:  PARTIAL (two of three)":           VerdictPartial,
		"verdict: pass":                                "",
		"no verdict here":                              "",
		"the VERDICT: PASS is inline, not a line":      "",
	}
	for in, want := range tests {
		if got := ParseVerdict(in); got != want {
			t.Errorf("ParseVerdict(%q) = %q, want %q", in, got, want)
		}
	}
}
