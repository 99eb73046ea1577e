package memory

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/llm"
)

// Budget is how many bytes of recalled memory one session may show the
// model; past it, recall stops (deterministic and semantic alike).
const Budget = 60 * 1024

// MinSideQuery is the shortest message (in characters) worth a semantic
// side query; "ok" or "go on" is not.
const MinSideQuery = 8

// DefaultK is how many memories the deterministic recall shows per message.
const DefaultK = 5

// Recall is one session's memory recall. For each user message it shows the
// best deterministic matches at once, and starts a semantic side query that
// runs in parallel with the first model call; its answer is injected at most
// once, between round trips. Memories already shown are never shown again.
type Recall struct {
	Store *Store
	// Side sends a side request and returns the answer's text; nil turns
	// the semantic query off.
	Side func(ctx context.Context, req *llm.Request) (string, error)
	// Model names the model for side requests.
	Model func() string
	// K is how many deterministic matches to show (0 = DefaultK).
	K int
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu       sync.Mutex
	surfaced map[string]bool
	spent    int
	pending  *pending
	// SideQueries counts side queries started (for tests and /status).
	SideQueries int
}

type pending struct {
	done   chan struct{}
	chosen []Memory
	cancel context.CancelFunc
	// waited counts requests seen since submit: the answer is injected
	// between round trips, never into the request it ran alongside.
	waited int
}

func (r *Recall) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Submit is called the moment the user submits message. It returns the
// reminder to send with the message ("" when nothing matches or the budget
// is spent) and starts the semantic side query, unless the message is very
// short, the budget is spent, or there are no memories left to show.
func (r *Recall) Submit(ctx context.Context, message string) string {
	pool, err := r.Store.Indexed()
	if err != nil || len(pool) == 0 {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.surfaced == nil {
		r.surfaced = map[string]bool{}
	}
	now := r.now()
	carried := ""
	if p := r.pending; p != nil {
		// The previous message's side answer was never injected (its turn
		// had one round trip): this boundary is the next chance; one still
		// running is stale now.
		r.pending = nil
		select {
		case <-p.done:
			carried = r.showLocked(p.chosen, now, "picked by meaning")
		default:
			p.cancel()
		}
	}
	if r.spent >= Budget {
		return carried
	}
	k := r.K
	if k <= 0 {
		k = DefaultK
	}
	var picked []Memory
	for _, s := range Rank(message, r.fresh(pool), now) {
		if len(picked) == k {
			break
		}
		picked = append(picked, s.Memory)
	}
	text := r.showLocked(picked, now, "matched by words")
	rest := r.fresh(pool)
	if r.Side != nil && len(rest) > 0 && r.spent < Budget && len([]rune(strings.TrimSpace(message))) >= MinSideQuery {
		r.startLocked(ctx, message, rest)
	}
	if carried != "" && text != "" {
		return carried + "\n" + text
	}
	return carried + text
}

// fresh filters out memories already shown this session.
func (r *Recall) fresh(pool []Memory) []Memory {
	var out []Memory
	for _, m := range pool {
		if !r.surfaced[m.File()] {
			out = append(out, m)
		}
	}
	return out
}

// showLocked formats list within the budget and marks it shown.
func (r *Recall) showLocked(list []Memory, now time.Time, how string) string {
	var keep []Memory
	for _, m := range list {
		if r.surfaced[m.File()] {
			continue
		}
		keep = append(keep, m)
	}
	text := Format(keep, r.Store.Dir, now, how)
	for text != "" && r.spent+len(text) > Budget && len(keep) > 0 {
		keep = keep[:len(keep)-1]
		text = Format(keep, r.Store.Dir, now, how)
	}
	for _, m := range keep {
		r.surfaced[m.File()] = true
	}
	r.spent += len(text)
	return text
}

// sideSystem is the instruction of the semantic recall side request.
const sideSystem = `You pick long-term memories relevant to a user's message for a coding agent.
You get the message and a numbered list of memories (file, title, one-line description).
Answer with the files of the relevant memories, one per line, most relevant first, at most 5.
Pick by meaning, across languages ("deploy steps" matches "CI/CD notes", "部署流程" matches "CI 发布注意事项").
If none is relevant, answer exactly: none`

func (r *Recall) startLocked(ctx context.Context, message string, cands []Memory) {
	var b strings.Builder
	b.WriteString("Message:\n" + strings.TrimSpace(message) + "\n\nMemories:\n")
	for _, m := range cands {
		b.WriteString(m.File() + " | " + oneLine(m.Name) + " | " + oneLine(m.Description) + "\n")
	}
	model := ""
	if r.Model != nil {
		model = r.Model()
	}
	req := &llm.Request{
		Model:     model,
		System:    []llm.SystemBlock{{Text: llm.PurposeTag(llm.PurposeMemoryRecall) + "\n" + sideSystem}},
		Messages:  []llm.Message{llm.UserText(b.String())},
		MaxTokens: 256,
		Purpose:   llm.PurposeMemoryRecall,
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &pending{done: make(chan struct{}), cancel: cancel}
	r.pending = p
	r.SideQueries++
	go func() {
		defer close(p.done)
		defer cancel()
		answer, err := r.Side(sctx, req)
		if err != nil {
			return
		}
		var chosen []Memory
		for _, line := range strings.Split(answer, "\n") {
			for _, m := range cands {
				if strings.Contains(line, m.File()) && !containsMemory(chosen, m) {
					chosen = append(chosen, m)
				}
			}
		}
		if len(chosen) > 5 {
			chosen = chosen[:5]
		}
		p.chosen = chosen // read only after done is closed
	}()
}

// Take is called before each model request. It returns the semantic
// answer once it has settled, at most once per message and never for the
// first request after submit (the one it ran alongside); "" otherwise. It
// never blocks.
func (r *Recall) Take() string {
	r.mu.Lock()
	p := r.pending
	if p == nil {
		r.mu.Unlock()
		return ""
	}
	p.waited++
	first := p.waited == 1
	r.mu.Unlock()
	if first {
		return ""
	}
	select {
	case <-p.done:
	default:
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending != p {
		return ""
	}
	r.pending = nil
	return r.showLocked(p.chosen, r.now(), "picked by meaning")
}

// Wait blocks until the pending side query (if any) has settled; tests
// and shutdown use it.
func (r *Recall) Wait() {
	r.mu.Lock()
	p := r.pending
	r.mu.Unlock()
	if p != nil {
		<-p.done
	}
}

// Reset forgets what was shown and spent, for a new conversation (/clear,
// resuming another session): its model has seen none of it.
func (r *Recall) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending != nil {
		r.pending.cancel()
		r.pending = nil
	}
	r.surfaced, r.spent = nil, 0
}

// Unsee forgets which memories were shown but keeps the bytes spent: after
// a summary replaced the messages that carried them, they may be shown
// again, within the same session budget.
func (r *Recall) Unsee() {
	r.mu.Lock()
	r.surfaced = nil
	r.mu.Unlock()
}

// Spent reports the bytes of memory shown so far this session.
func (r *Recall) Spent() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spent
}

func containsMemory(list []Memory, m Memory) bool {
	for _, x := range list {
		if x.File() == m.File() {
			return true
		}
	}
	return false
}
