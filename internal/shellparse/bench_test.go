package shellparse

import (
	"strings"
	"testing"
)

// long50 is a compound command of 50 simple commands of the kinds agents
// chain: reads, pipes, git queries, builds, a substitution and a -c string.
func long50() string {
	parts := []string{
		"cd src", "ls -la", "git status --porcelain", "git log --oneline -5 | head -3", "grep -rn TODO . | wc -l",
		"go vet ./...", "echo $(git rev-parse HEAD)", "bash -c 'pwd && ls'", "find . -name '*.go' | xargs wc -l", "sort -u f",
	}
	var cmds []string
	for len(cmds) < 50 {
		for _, p := range parts {
			// count simple commands: pipes and -c strings hold two
			cmds = append(cmds, p)
		}
	}
	return strings.Join(cmds[:50], " && ")
}

// BenchmarkAnalyzeLong50 measures the analysis of a 50-part compound
// command (more simple commands counting pipes and nested strings).
func BenchmarkAnalyzeLong50(b *testing.B) {
	opts := testOpts(b)
	cmd := long50()
	if n := len(Analyze(cmd, opts).Commands); n < 50 {
		b.Fatalf("only %d simple commands", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		Analyze(cmd, opts)
	}
}

// BenchmarkAnalyzeOrdinary measures one ordinary command.
func BenchmarkAnalyzeOrdinary(b *testing.B) {
	opts := testOpts(b)
	b.ReportAllocs()
	for b.Loop() {
		Analyze("git log --oneline -20 | grep fix | head -5", opts)
	}
}
