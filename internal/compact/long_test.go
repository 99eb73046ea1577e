package compact_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/compact"
	"github.com/hew-dev/hew/internal/llm"
)

const longFirstPrompt = "Refactor the storage layer: 不要修改公共 API, keep every test green, and never touch vendor/."

// session is a scripted long session: a model that keeps calling tools
// (re-reading files, searching, running commands) for turns of random
// length, and tools whose results are random sizes up to 200 KB, part of
// them Chinese text.
type session struct {
	rng        *rand.Rand
	asciiBuf   string
	cjkBuf     string
	turnLen    int
	tripInTurn int
	calls      int
	p          *fakeProvider
	sim        *cacheSim
	clk        *clock
}

func newSession(seed uint64, clk *clock) *session {
	s := &session{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), clk: clk}
	var sb strings.Builder
	for i := 0; sb.Len() < 200*1024; i++ {
		fmt.Fprintf(&sb, "line %d: func handler%d(w http.ResponseWriter) error { return nil }\n", i, i)
	}
	s.asciiBuf = sb.String()
	s.cjkBuf = strings.Repeat("上下文窗口管理与提示缓存，", 200*1024/36+1)
	s.sim = &cacheSim{now: clk.now}
	s.p = &fakeProvider{summary: summaryText + "\n" + strings.Repeat("Detail of the work so far. ", 80), main: s.answer}
	return s
}

func (s *session) answer(req *llm.Request) (*llm.Response, error) {
	s.tripInTurn++
	var resp *llm.Response
	if s.tripInTurn >= s.turnLen {
		resp = textAnswer("That part is done.")
	} else {
		resp = &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "Next step."}}}, StopReason: llm.StopToolUse}
		for range 1 + s.rng.IntN(2) { // sometimes two parallel calls
			s.calls++
			id := fmt.Sprintf("toolu_%05d", s.calls)
			var name, input string
			switch s.rng.IntN(4) {
			case 0, 1:
				name, input = "read_file", fmt.Sprintf(`{"file_path":"internal/store/file%02d.go"}`, s.rng.IntN(30))
			case 2:
				name, input = "grep_search", fmt.Sprintf(`{"pattern":"handler%d"}`, s.rng.IntN(100))
			default:
				name, input = "run_shell", `{"command":"go test ./..."}`
			}
			resp.Message.Content = append(resp.Message.Content, llm.Block{Type: llm.BlockToolUse, ID: id, Name: name, Input: []byte(input)})
		}
	}
	resp.Usage = s.sim.usage(req)
	return resp, nil
}

// result is a tool output of random size up to 200 KB; a quarter are Chinese.
func (s *session) result(llm.Block) string {
	n := s.rng.IntN(200*1024 + 1)
	if s.rng.IntN(4) == 0 {
		n -= n % 3
		return s.cjkBuf[:min(n, len(s.cjkBuf)/3*3)]
	}
	return s.asciiBuf[:min(n, len(s.asciiBuf))]
}

// The long-session proof: 1,000 model round trips never send a request
// above the window, never break a tool_use/tool_result pair, keep the first
// instruction reachable and keep the harness's memory bounded.
func TestLongSessionThousandRoundTrips(t *testing.T) {
	clk := newClock()
	s := newSession(7, clk)
	ev := &events{}
	m := newManager(compact.Options{Provider: s.p, Auto: true}, clk, ev)
	const window = 200000 // the "mock" model
	var peakReq, peakBytes int
	var heap []uint64
	d := &driver{m: m, p: s.p, base: baseRequest, clk: clk, perTrip: 20 * time.Second, run: s.result}
	d.onReq = func(req *llm.Request) {
		if n := compact.EstimateRequest(req); n+req.MaxTokens > window {
			t.Fatalf("round trip %d: request of %d tokens + %d output above the %d window", d.trips, n, req.MaxTokens, window)
		} else {
			peakReq = max(peakReq, n)
		}
		if err := llm.ValidateHistory(req.Messages); err != nil {
			t.Fatalf("round trip %d: %v", d.trips, err)
		}
		if !containsText(req.Messages, longFirstPrompt) {
			t.Fatalf("round trip %d: the first instruction is no longer in the history", d.trips)
		}
		bytes := 0
		for _, m := range req.Messages {
			for _, b := range m.Content {
				bytes += len(b.Text) + len(b.Content) + len(b.Input)
			}
		}
		peakBytes = max(peakBytes, bytes)
		if d.trips%100 == 0 {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			heap = append(heap, ms.HeapAlloc)
		}
	}
	prompt := longFirstPrompt
	for turn := 0; d.trips < 1000; turn++ {
		s.turnLen, s.tripInTurn = 1+s.rng.IntN(80), 0
		if err := d.turn(context.Background(), prompt, 1000-d.trips); err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		prompt = fmt.Sprintf("Good. Now continue with part %d.", turn+2)
		if turn%5 == 4 {
			clk.advance(7 * time.Minute) // a coffee break: the cache goes cold
		}
	}
	for _, sr := range s.p.summaries {
		if n := compact.EstimateRequest(sr) + sr.MaxTokens; n > window {
			t.Fatalf("a summary request needs %d tokens", n)
		}
	}
	tiers := map[int]int{}
	for _, c := range ev.compacted() {
		tiers[c.Tier]++
	}
	if tiers[4] == 0 || tiers[2] == 0 || tiers[3] == 0 || tiers[1] == 0 {
		t.Fatalf("every tier should have acted in this session: %v", tiers)
	}
	// Memory: the history is bounded by the window, and so is the heap.
	if peakBytes > 4*window*4 {
		t.Fatalf("history grew to %d bytes", peakBytes)
	}
	late := heap[len(heap)/2:]
	for _, h := range late {
		if h > 64<<20 {
			t.Fatalf("heap at %d MB late in the session: %v", h>>20, heap)
		}
	}
	st := m.Stats()
	t.Logf("round trips %d, turns with summaries %d, tier actions %v, peak request %d tokens, peak history %d KB, heap samples (MB) %v, cache hit rate %.2f",
		d.trips, len(s.p.summaries), tiers, peakReq, peakBytes>>10, mb(heap), st.HitRate)
}

func containsText(h []llm.Message, s string) bool {
	for _, m := range h {
		for _, b := range m.Content {
			if b.Type == llm.BlockText && strings.Contains(b.Text, s) {
				return true
			}
		}
	}
	return false
}

func mb(h []uint64) []uint64 {
	out := make([]uint64, len(h))
	for i, v := range h {
		out[i] = v >> 20
	}
	return out
}
