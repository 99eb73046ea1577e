package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/session"
)

// Submit runs one user message to the end of its turn, honouring --goal
// for the first one. Interrupt (or cancelling ctx) stops it; the history is
// consistent afterwards.
func (s *Session) Submit(ctx context.Context, text string) agent.TurnResult {
	ctx, done := s.begin(ctx)
	defer done()
	if res, ok := s.ready(ctx); !ok {
		return res
	}
	defer s.restoreModel() // an inline skill's model and grants last one turn
	defer s.grants.stop()
	if msg, ok, err := s.skillMessage(ctx, text); ok {
		if err != nil {
			return agent.TurnResult{StopReason: agent.StopError, Err: err.Error(), SessionID: s.ID(), CostUSD: -1}
		}
		text = msg
	}
	defer s.endTurn()
	text, blocked := s.promptHook(ctx, text)
	if blocked != "" {
		s.emit(agent.Notice{Level: "warn", Text: blocked})
		return agent.TurnResult{StopReason: agent.StopError, Err: blocked, SessionID: s.ID(), CostUSD: -1}
	}
	s.mu.Lock()
	goal := s.goal
	s.goal = ""
	s.mu.Unlock()
	if goal != "" {
		return s.runGoal(ctx, text, goal)
	}
	return s.runPendingPlan(ctx, s.agent.Run(ctx, s.userPrompt(text)))
}

// ready prepares the session and shows pending notices; a failed
// preparation is the turn's error result.
func (s *Session) ready(ctx context.Context) (agent.TurnResult, bool) {
	err := s.Prepare(ctx)
	s.flushNotices()
	if err != nil {
		return agent.TurnResult{StopReason: agent.StopError, Err: err.Error(), SessionID: s.ID(), CostUSD: -1}, false
	}
	return agent.TurnResult{}, true
}

// begin makes the context Interrupt cancels for one piece of work.
func (s *Session) begin(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel()
	}
}

// Interrupt stops the running turn, goal round, loop round or compaction,
// as Ctrl+C does; it does nothing between turns.
func (s *Session) Interrupt() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Compact summarises the conversation to free context (/compact [focus]).
func (s *Session) Compact(ctx context.Context, focus string) error {
	ctx, done := s.begin(ctx)
	defer done()
	if err := s.Prepare(ctx); err != nil {
		return err
	}
	return s.agent.Compact(ctx, focus)
}

// Clear starts a fresh conversation with the same settings (/clear): a
// new session with a new id, while the previous one stays resumable. The
// history, todos and context figures go, and the next message carries the
// project instructions again. previous is the id of the session left, ""
// when it recorded nothing (there is no file to go back to).
func (s *Session) Clear() (previous string) {
	s.sessionEnd("clear")
	if s.rec.Path() != "" {
		previous = s.rec.ID()
	}
	meta := s.newMeta()
	s.mu.Lock()
	meta.Model = s.model
	s.mu.Unlock()
	if err := s.rec.restart(meta); err != nil {
		s.emit(agent.Notice{Level: "warn", Text: "closing the previous session file: " + err.Error()})
	}
	s.agent.Restart(meta.ID)
	s.switched(meta.ID)
	s.mu.Lock()
	s.firstTurn = true
	s.mu.Unlock()
	s.sessionStart(context.Background(), "clear")
	return previous
}

// switched makes id the session the agent, tools and context manager see,
// with nothing carried over from the previous conversation.
func (s *Session) switched(id string) {
	s.agent.SetSessionID(id)
	s.ctxMgr.Reset()
	s.memory.recall.Reset()
	s.mu.Lock()
	s.todos = nil
	s.mu.Unlock()
}

// Resume switches to the session id of this project: its history goes into
// the agent and new records append to its file.
func (s *Session) Resume(ctx context.Context, id string) error {
	path, err := session.Find(s.o.HewHome, id)
	if err != nil {
		return err
	}
	loaded, err := session.Load(path)
	if err != nil {
		return err
	}
	if err := s.Prepare(ctx); err != nil {
		return err
	}
	w, err := session.Append(path)
	if err != nil {
		return err
	}
	if err := s.rec.switchTo(w); err != nil {
		s.emit(agent.Notice{Level: "warn", Text: "closing the previous session file: " + err.Error()})
	}
	s.agent.SetHistory(loaded.Messages)
	s.switched(w.ID())
	s.mu.Lock()
	s.firstTurn = false
	s.mu.Unlock()
	return nil
}

// Summary is one resumable session, as /resume lists it.
type Summary struct {
	ID       string
	Updated  time.Time
	Title    string // the first prompt
	Messages int
}

// Sessions lists this project's sessions, newest first.
func (s *Session) Sessions() ([]Summary, error) {
	list, err := session.List(session.Dir(s.o.HewHome, s.o.Root))
	out := make([]Summary, 0, len(list))
	for _, i := range list {
		out = append(out, Summary{ID: i.ID, Updated: i.Modified, Title: i.Title, Messages: i.Messages})
	}
	return out, err
}

// SetMode is the one place the permission mode changes (/mode, /plan, the
// plan tools); entering plan mode remembers where to return.
func (s *Session) SetMode(m permission.Mode) {
	s.mu.Lock()
	prev := s.mode
	s.mode = m
	s.mu.Unlock()
	if m == permission.ModePlan && prev != permission.ModePlan && s.plans != nil {
		s.plans.Remember(prev)
	}
	if s.agent != nil {
		s.agent.SetMode(m)
	}
}

// Mode is the current permission mode.
func (s *Session) Mode() permission.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// SetModel switches the conversation to model (/model NAME); the history
// stays.
func (s *Session) SetModel(model string) error {
	if s.o.NewProvider == nil {
		return errors.New("switching models is not available in this session")
	}
	p, err := s.o.NewProvider(model)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.provider, s.model = p, model
	s.mu.Unlock()
	s.agent.SetModel(p, model)
	return nil
}

// Model is the current model.
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// ProviderName names the provider ("anthropic", "openai", "mock").
func (s *Session) ProviderName() string { return s.o.ProviderName }

// ID is the session id (what --resume takes).
func (s *Session) ID() string { return s.rec.ID() }

// Root is the project root the session works in.
func (s *Session) Root() string { return s.o.Root }

// Resumed is how many messages the session resumed at start had (0 for a
// new session).
func (s *Session) Resumed() int { return s.resumed }

// History is the conversation so far.
func (s *Session) History() []llm.Message { return s.agent.History() }

// Usage is the run's token use and estimated cost (-1 when unknown).
func (s *Session) Usage() (llm.Usage, float64) { return s.agent.Usage() }

// ToolNames lists the tools the model sees (after Prepare: MCP tools too).
func (s *Session) ToolNames() []string { return s.o.Registry.Names() }

// Status is what /status reports.
type Status struct {
	ID                    string
	Model, Provider       string
	Mode                  permission.Mode
	Usage                 llm.Usage
	CostUSD               float64 // -1 when unknown
	ContextTokens, Window int
	// CacheHitRate in [0,1]; negative before the first request.
	CacheHitRate float64
	// ToolListMisses counts requests whose tool list changed (deferred
	// tools activated, MCP tools came or went), each one whole cache miss;
	// ToolListMissTokens is what they wrote to the cache again.
	ToolListMisses, ToolListMissTokens int
	// MCP is one line per configured MCP server (state, tool count, error).
	MCP []string
	// Trust is the project's trust state (Options.Trust); empty shows none.
	Trust string
	// Autonomy are /status rows about the goal, the loop and auto mode
	// (key, text), only for what is active or has happened.
	Autonomy [][2]string
	// Sandbox describes the shell sandbox: confinement, how the network is
	// limited, the domains reached this session.
	Sandbox []string
}

// Status reports the session's figures.
func (s *Session) Status() Status {
	st := s.ctxMgr.Stats()
	rate := -1.0
	if st.Requests > 0 {
		rate = st.HitRate
	}
	u, cost := s.agent.Usage()
	out := Status{ID: s.ID(), Model: s.Model(), Provider: s.o.ProviderName, Mode: s.Mode(), Usage: u, CostUSD: cost,
		ContextTokens: st.ContextTokens, Window: st.Window, CacheHitRate: rate, Trust: s.o.Trust,
		Autonomy:       s.autonomyRows(),
		ToolListMisses: st.ToolListMisses, ToolListMissTokens: st.ToolListMissTokens}
	if s.o.Confinement != nil {
		out.Sandbox = s.o.Confinement.StatusLines()
	}
	if s.o.MCP != nil {
		for _, m := range s.o.MCP.Status() {
			line := fmt.Sprintf("%s: %s, %d tools", m.Name, m.State, m.Tools)
			if m.Error != "" {
				line += " — " + m.Error
			}
			out.MCP = append(out.MCP, line)
		}
	}
	return out
}

// Close releases what the session holds: MCP servers and the session file.
func (s *Session) Close() error {
	s.sessionEnd("other")
	if s.o.MCP != nil {
		_ = s.o.MCP.Close()
	}
	if s.o.Confinement != nil {
		_ = s.o.Confinement.Close()
	}
	if err := s.rec.Close(); err != nil {
		return fmt.Errorf("session file: %w", err)
	}
	return nil
}
