package testenv

import (
	"testing"
)

// recorder captures how a helper ended the test.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Fatalf(format string, a ...any) { r.fatal = format; panic(r) }
func (r *recorder) Skip(a ...any)                  { r.skip = "skip"; panic(r) }

func run(f func(tb testing.TB)) (r *recorder) {
	r = &recorder{}
	defer func() { recover() }()
	f(r)
	return r
}

func TestMissingSkipsLocallyAndFailsInCI(t *testing.T) {
	t.Setenv("CI", "")
	if r := run(func(tb testing.TB) { Tool(tb, "no-such-program-hew") }); r.skip == "" || r.fatal != "" {
		t.Fatalf("locally: %+v", r)
	}
	t.Setenv("CI", "true")
	if r := run(func(tb testing.TB) { Tool(tb, "no-such-program-hew") }); r.fatal == "" {
		t.Fatalf("under CI: %+v", r)
	}
	if r := run(func(tb testing.TB) { File(tb, "/no/such/file", "run make deps") }); r.fatal == "" {
		t.Fatalf("file under CI: %+v", r)
	}
	if r := run(func(tb testing.TB) { Tool(tb, "go") }); r.fatal != "" || r.skip != "" {
		t.Fatalf("present tool: %+v", r)
	}
}
