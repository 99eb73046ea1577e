package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// testEnv is a project in a temp dir with a state dir beside it.
func testEnv(t testing.TB) *Env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state, _ := filepath.EvalSymlinks(t.TempDir())
	return &Env{Root: root, StateDir: state, HomeDir: t.TempDir(), Reads: NewReadTracker()}
}

func writeTestFile(t testing.TB, env *Env, rel, content string) string {
	t.Helper()
	p := filepath.Join(env.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readTestFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call runs a tool the way the agent pipeline does: schema validation,
// the semantic check, then Run.
func call(t testing.TB, env *Env, tool Tool, input any) (Result, error) {
	t.Helper()
	raw := mustJSON(t, input)
	r := NewRegistry()
	r.Register(tool)
	if err := r.Validate(tool.Name(), raw); err != nil {
		return Result{}, err
	}
	if c, ok := tool.(Checker); ok {
		if err := c.Check(env, raw); err != nil {
			return Result{}, err
		}
	}
	return tool.Run(context.Background(), env, raw)
}
