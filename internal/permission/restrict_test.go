package permission

import (
	"encoding/json"
	"testing"
)

func TestRestriction(t *testing.T) {
	root := t.TempDir()
	r, err := NewRestriction([]string{"Read", "Bash(git status:*)", "Bash(go test *)", "write_file(docs/**)"}, root, "")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, input string
		want        bool
	}{
		{"read_file", `{"file_path":"x"}`, true},
		{"grep_search", `{"pattern":"x"}`, true}, // Read covers the read family
		{"edit_file", `{"file_path":"x","old_string":"a","new_string":"b"}`, false},
		{"run_shell", `{"command":"git status"}`, true},
		{"run_shell", `{"command":"git status && go test ./..."}`, true},
		{"run_shell", `{"command":"git status; rm -rf x"}`, false},
		{"run_shell", `{"command":"timeout 5 git status --short"}`, true},
		{"run_shell", `{"command":"git push"}`, false},
		{"write_file", `{"file_path":"docs/a.md","content":""}`, true},
		{"write_file", `{"file_path":"src/a.go","content":""}`, false},
		{"web_fetch", `{"url":"https://x.org"}`, false},
	}
	for _, tc := range tests {
		ok, why := r.Permits(tc.tool, json.RawMessage(tc.input))
		if ok != tc.want {
			t.Errorf("%s %s: %v (%s)", tc.tool, tc.input, ok, why)
		}
		if !ok && why == "" {
			t.Errorf("%s: no reason", tc.tool)
		}
	}
	if !r.Covers("run_shell") || r.Covers("web_fetch") || !r.Covers("list_files") {
		t.Error("Covers")
	}
	if _, err := NewRestriction([]string{"Bogus"}, root, ""); err == nil {
		t.Error("unknown tool accepted")
	}
}
