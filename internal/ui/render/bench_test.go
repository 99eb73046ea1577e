package render

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/term"
)

// answer is a typical Markdown answer, streamed in small pieces.
var answer = strings.Repeat("## Step\nI changed **two** files and ran `go test ./...`:\n- `main.go`: fixed the 中文 greeting\n- tests pass\n```go\nfunc hello() string { return \"hello\" }\n```\n", 20)

func benchStream(b *testing.B, tty, color bool) {
	s, _, _, _ := term.Test()
	s.Out, s.OutTTY, s.Color = io.Discard, tty, color
	r := New(s, Options{})
	r.spin.tick = func() (<-chan time.Time, func()) { return nil, func() {} }
	b.ReportAllocs()
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		r.Emit(agent.TurnStarted{})
		for i := 0; i < len(answer); i += 8 {
			r.Emit(agent.TextDelta{Text: answer[i:min(i+8, len(answer))]})
		}
		r.Emit(agent.TurnEnded{})
	}
}

func BenchmarkStreamPlain(b *testing.B) { benchStream(b, false, false) }
func BenchmarkStreamColor(b *testing.B) { benchStream(b, true, true) }
