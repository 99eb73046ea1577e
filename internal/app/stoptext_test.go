package app

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// Stop and error text on stderr is printed once, with correct plurals
// (issue 12.16); the goldens pin it. Durations are masked.
func TestStopTextGolden(t *testing.T) {
	cases := []struct {
		name   string
		script string
		args   []string
	}{
		{"max-turns-1", `{"turns": [{"tool_calls": [{"id": "a", "name": "list_files", "input": {}}]}, {"text": "never"}]}`, []string{"--max-turns", "1"}},
		{"max-turns-1-verbose", `{"turns": [{"tool_calls": [{"id": "a", "name": "list_files", "input": {"path": "sub"}}]}, {"text": "never"}]}`, []string{"--max-turns", "1", "--verbose"}},
		{"model-error", `{"turns": [{"error": {"status": 400, "type": "invalid_request_error", "message": "bad request"}}]}`, nil},
	}
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	tokens := regexp.MustCompile(`tokens in \d+ out \d+`)
	durations := regexp.MustCompile(`\d+ ms|\d+(\.\d+)?m?s\b`)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			if err := os.MkdirAll("sub", 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile("sub/f.txt", []byte("x\n"), 0o644)
			script := filepath.Join(t.TempDir(), "s.json")
			os.WriteFile(script, []byte(tc.script), 0o644)
			env := []string{"HEW_HOME=" + t.TempDir(), "HOME=" + t.TempDir(), "HEW_MOCK_SCRIPT=" + script}
			_, _, errOut := runMain(t, env, append([]string{"-p", "go", "--provider", "mock"}, tc.args...)...)
			got := durations.ReplaceAllString(errOut, "<t>")
			got = tokens.ReplaceAllString(got, "tokens in <n> out <n>") // the prompt's size is not pinned here
			path := filepath.Join(testdata, "stop-"+tc.name+".stderr.golden")
			if os.Getenv("HEW_UPDATE_GOLDEN") == "1" {
				os.WriteFile(path, []byte(got), 0o644)
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("golden: %v (HEW_UPDATE_GOLDEN=1 writes it)", err)
			}
			if got != string(want) {
				t.Errorf("stderr differs from %s\n--- got\n%s--- want\n%s", path, got, want)
			}
		})
	}
}
