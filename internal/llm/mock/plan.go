// Package mock is hew's offline model. With a scenario it plays the
// scripted turns (and faults) of SPEC section 7; without one it answers a
// few plain intents with real tool calls so the whole loop can be tried
// with no key and no network. The same Engine also drives `hew mock-server`.
package mock

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/scenario"
)

// Plan is one planned answer, independent of any wire protocol.
type Plan struct {
	Thinking  string
	Text      string
	ToolCalls []llm.Block
	Stop      llm.StopReason
	Usage     llm.Usage
	// Faults for this attempt (see scenario.Step).
	Fault       *scenario.Fault
	CutAfter    int
	StreamError *scenario.StreamFault
	ChunkDelay  time.Duration
	ChunkSize   int
	Interleave  bool
	// Turn is the scenario turn number, 0 outside a scenario.
	Turn int
}

// Engine plans answers for a scenario (shared turn counter) or, with a nil
// scenario, from the offline intents.
type Engine struct {
	sc     *scenario.Scenario
	player *scenario.Player
}

// NewEngine makes an engine; sc may be nil.
func NewEngine(sc *scenario.Scenario) *Engine {
	e := &Engine{sc: sc}
	if sc != nil {
		e.player = scenario.NewPlayer(sc)
	}
	return e
}

// Remaining reports unserved scenario turns (0 without a scenario).
func (e *Engine) Remaining() int {
	if e.player == nil {
		return 0
	}
	return e.player.Remaining()
}

// Delivered tells the engine an answer planned with a cut or stream fault
// reached the client whole, so its turn counts as served.
func (e *Engine) Delivered(p Plan) {
	if e.player != nil && p.Turn > 0 && (p.CutAfter > 0 || p.StreamError != nil) {
		e.player.Delivered(p.Turn)
	}
}

// Side answers for side requests without a scripted one.
var sideDefaults = map[llm.Purpose]string{
	llm.PurposeCompact:      "Summary of the conversation so far (mock): the user asked for work on this project and the assistant carried it out with tools. No open questions were recorded.",
	llm.PurposeGoalEval:     `{"ok": true, "impossible": false, "reason": "the mock evaluator has no goal_eval answer in its scenario and accepts by default"}`,
	llm.PurposeClassifier:   `{"decision": "block", "reason": "the mock classifier has no classifier answer in its scenario and blocks by default"}`,
	llm.PurposeMemoryRecall: "No memories are relevant to this request.",
}

// Plan decides the answer to req.
func (e *Engine) Plan(req *llm.Request) Plan {
	p := e.plan(req)
	if p.ChunkSize <= 0 {
		p.ChunkSize = 6
	}
	if p.Stop == "" {
		p.Stop = llm.StopEndTurn
		if len(p.ToolCalls) > 0 {
			p.Stop = llm.StopToolUse
		}
	}
	if p.Usage == (llm.Usage{}) {
		out := len(p.Text) + len(p.Thinking)
		for _, c := range p.ToolCalls {
			out += len(c.Name) + len(c.Input)
		}
		p.Usage = llm.Usage{InputTokens: EstimateTokens(req), OutputTokens: max(1, (out+3)/4)}
	}
	return p
}

func (e *Engine) plan(req *llm.Request) Plan {
	purpose := llm.DetectPurpose(req)
	if purpose != llm.PurposeMain {
		if e.sc != nil {
			if s, ok := e.sc.Side[string(purpose)]; ok {
				return Plan{Text: s}
			}
		}
		if s, ok := sideDefaults[purpose]; ok {
			return Plan{Text: s}
		}
		return Plan{Text: "(mock: no answer for side request " + string(purpose) + ")"}
	}
	if e.player == nil {
		return intentPlan(req)
	}
	st := e.player.Next()
	if st.Turn == nil {
		return Plan{Text: "Done. (The mock scenario has no more turns.)", Turn: st.Number}
	}
	t := st.Turn
	p := Plan{
		Thinking: t.Thinking, Text: t.Text, Stop: llm.StopReason(t.StopReason), Turn: st.Number,
		Fault: st.Fault, CutAfter: st.CutAfter, StreamError: st.StreamError,
		ChunkDelay: time.Duration(t.ChunkDelayMS) * time.Millisecond, ChunkSize: t.ChunkSize,
		Interleave: t.InterleaveToolCalls,
	}
	if p.Stop == "stop_sequence" {
		p.Stop = llm.StopEndTurn
	}
	if t.Usage != nil {
		p.Usage = *t.Usage
	}
	for _, c := range t.ToolCalls {
		p.ToolCalls = append(p.ToolCalls, llm.Block{Type: llm.BlockToolUse, ID: c.ID, Name: c.Name, Input: c.Input})
	}
	return p
}

// EstimateTokens guesses a request's input size at four bytes a token, the
// same rough rule budgets use before a real count arrives.
func EstimateTokens(req *llm.Request) int {
	n := 0
	for _, s := range req.System {
		n += len(s.Text)
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			n += len(b.Text) + len(b.Content) + len(b.Input) + len(b.Name) + len(b.Data)
		}
	}
	return max(1, (n+3)/4)
}

// Pieces splits s into chunks of about n bytes on rune boundaries.
func Pieces(s string, n int) []string {
	if n <= 0 {
		n = 6
	}
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// ToolID is the deterministic id of the k-th call of the n-th answer.
func ToolID(n, k int) string { return fmt.Sprintf("toolu_mock_%02d_%d", n, k) }

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}
