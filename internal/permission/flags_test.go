package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFlagsCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    Flags
		err  string
	}{
		{"none", Flags{}, ""},
		{"everything fine", Flags{Modes: ModeFlags{Plan: true}, Allowed: []string{"Edit"}, Disallowed: []string{"Bash(rm:*)"}, AddDirs: []string{dir, "~/elsewhere"}}, ""},
		{"two modes", Flags{Modes: ModeFlags{Plan: true, Auto: true}}, "give only one permission mode"},
		{"empty allow rule", Flags{Allowed: []string{" "}}, "need at least one rule"},
		{"empty deny rule", Flags{Disallowed: []string{""}}, "need at least one rule"},
		{"missing directory", Flags{AddDirs: []string{filepath.Join(dir, "nope")}}, "not a directory"},
		{"a file", Flags{AddDirs: []string{file}}, "--add-dir " + file + ": not a directory"},
	} {
		err := tc.f.Check()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
	var o Options
	Flags{Allowed: []string{"a"}, Disallowed: []string{"b"}, AddDirs: []string{dir}}.Apply(&o)
	if strings.Join(o.AllowedTools, ",") != "a" || strings.Join(o.DisallowedTools, ",") != "b" || strings.Join(o.AdditionalDirs, ",") != dir {
		t.Errorf("applied %+v", o)
	}
}
