package permission

import (
	"strings"
	"testing"
)

// One mode may be named, by --permission-mode (any spelling ParseMode
// takes) or a shorthand; two are an error, even when they agree.
func TestModeFlagsPick(t *testing.T) {
	for _, tc := range []struct {
		f    ModeFlags
		want Mode
		err  string
	}{
		{ModeFlags{}, "", ""},
		{ModeFlags{Mode: "accept-edits"}, ModeAcceptEdits, ""},
		{ModeFlags{Mode: "yolo"}, ModeBypass, ""},
		{ModeFlags{Plan: true}, ModePlan, ""},
		{ModeFlags{AcceptEdits: true}, ModeAcceptEdits, ""},
		{ModeFlags{Yolo: true}, ModeBypass, ""},
		{ModeFlags{DontAsk: true}, ModeDontAsk, ""},
		{ModeFlags{Auto: true}, ModeAuto, ""},
		{ModeFlags{Mode: "sideways"}, "", "unknown permission mode"},
		{ModeFlags{Plan: true, Yolo: true}, "", "give only one permission mode"},
		{ModeFlags{Mode: "plan", Plan: true}, "", "give only one permission mode"},
	} {
		got, err := tc.f.Pick()
		if got != tc.want || tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: %q %v, want %q %q", tc.f, got, err, tc.want, tc.err)
		}
	}
}
