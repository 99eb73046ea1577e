package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppendToList(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".hew", "settings.local.json")
	if err := AppendToList(p, "permissions", "allow", "run_shell(make:*)"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte(`{"model": "m", "permissions": {"allow": ["run_shell(make:*)"], "deny": ["x"]}}`), 0o644)
	for range 2 {
		if err := AppendToList(p, "sandbox", "allowedDomains", "example.com"); err != nil {
			t.Fatal(err)
		}
	}
	if err := AppendToList(p, "permissions", "allow", "run_shell(make:*)"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	got := string(data)
	for _, want := range []string{`"model": "m"`, `"deny": [`, `"allowedDomains": [`} {
		if !strings.Contains(got, want) {
			t.Errorf("file lost %s:\n%s", want, got)
		}
	}
	if strings.Count(got, "example.com") != 1 || strings.Count(got, "run_shell(make:*)") != 1 {
		t.Errorf("a value was added twice:\n%s", got)
	}
	os.WriteFile(p, []byte(`[1, 2]`), 0o644)
	if err := AppendToList(p, "permissions", "allow", "x"); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Fatalf("non-object file: %v", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "[1, 2]" {
		t.Fatalf("a broken file was rewritten: %q", data)
	}
}
