package compact_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/compact"
	"github.com/hew-dev/hew/internal/llm"
)

// BenchmarkRoundTrip is the manager's overhead per model round trip in a
// long session near the threshold of a 200k window: one new tool call and
// result per request, a new turn every 20 round trips (so auto-compaction,
// with an instant fake summary, is part of the cost), cache warm.
func BenchmarkRoundTrip(b *testing.B) {
	clk := newClock()
	p := &fakeProvider{summary: summaryText}
	m := newManager(compact.Options{Provider: p, Auto: true}, clk, nil)
	h := &hb{}
	h.user(longFirstPrompt)
	for i := range 60 {
		h.read(fmt.Sprintf("internal/store/file%02d.go", i%40), ascii(10000))
	}
	h.say("ok").user("next")
	hist := h.h
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		b2 := &hb{h: hist, n: 1000 + i}
		if i%20 == 19 {
			b2.say("done").user("next part")
			hist = m.AtTurnStart(context.Background(), baseRequest(b2.h))
			b2 = &hb{h: hist, n: 1000 + i}
		}
		b2.read(fmt.Sprintf("internal/store/file%02d.go", i%40), ascii(4000+i%7*1000))
		req := baseRequest(b2.h)
		hist = m.BeforeRequest(req)
		req.Messages = hist
		m.AfterResponse(req, &llm.Response{Usage: llm.Usage{InputTokens: 1200, CacheReadTokens: 150000 + i}})
		clk.advance(5 * time.Second)
	}
	b.StopTimer()
	b.ReportMetric(float64(len(hist)), "messages-at-end")
}

// BenchmarkLongSession runs the scripted 1,000-round-trip session of
// TestLongSessionThousandRoundTrips and reports the manager's own time per
// round trip and the process's peak RSS (run it alone: -run '^$').
func BenchmarkLongSession(b *testing.B) {
	var spent time.Duration
	trips := 0
	for range b.N {
		clk := newClock()
		s := newSession(11, clk)
		m := newManager(compact.Options{Provider: s.p, Auto: true}, clk, nil)
		d := &driver{m: m, p: s.p, base: baseRequest, clk: clk, perTrip: 20 * time.Second, run: s.result}
		prompt := longFirstPrompt
		for turn := 0; d.trips < 1000; turn++ {
			s.turnLen, s.tripInTurn = 1+s.rng.IntN(80), 0
			if err := d.turn(context.Background(), prompt, 1000-d.trips); err != nil {
				b.Fatal(err)
			}
			prompt = fmt.Sprintf("Now part %d.", turn+2)
			if turn%5 == 4 {
				clk.advance(7 * time.Minute)
			}
		}
		spent += d.spent
		trips += d.trips
	}
	b.ReportMetric(float64(spent.Nanoseconds())/float64(trips), "manager-ns/roundtrip")
	if rss := peakRSS(); rss > 0 {
		b.ReportMetric(float64(rss)/(1<<20), "peakRSS-MB")
	}
}

// BenchmarkEstimateText measures the estimator over 200 KB of code and of
// Chinese text (MB/s is the figure to watch).
func BenchmarkEstimateText(b *testing.B) {
	s := newSession(1, newClock())
	for _, c := range []struct{ name, text string }{{"ascii", s.asciiBuf}, {"cjk", s.cjkBuf}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for range b.N {
				compact.EstimateText(c.text)
			}
		})
	}
}
