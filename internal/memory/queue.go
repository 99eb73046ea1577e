package memory

import (
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Queue holds memories proposed during a turn (by the model's memory_write
// tool, internal/tools/memory, or failure capture); Flush writes them at the
// turn boundary, so what the model sees never changes under a running turn.
type Queue struct {
	Store *Store
	mu    sync.Mutex
	items []Memory
}

// Propose checks m (type, text, secrets) and queues it.
func (q *Queue) Propose(m Memory) error {
	if strings.TrimSpace(m.Body) == "" {
		return errors.New("memory_write: text is empty")
	}
	if !validType(m.Type) {
		return fmt.Errorf("memory_write: unknown type %q (want one of %s)", m.Type, strings.Join(Types, ", "))
	}
	if len(m.Body) > MaxBody {
		return fmt.Errorf("memory_write: text is %d bytes; a memory holds at most %d, keep the gist", len(m.Body), MaxBody)
	}
	if why := SecretReason(m.Name + "\n" + m.Description + "\n" + m.Body); why != "" {
		return fmt.Errorf("memory_write: refused: the text looks like it contains %s; secrets never go into memory", why)
	}
	q.mu.Lock()
	q.items = append(q.items, m)
	q.mu.Unlock()
	return nil
}

// Pending reports how many proposals wait for the turn boundary.
func (q *Queue) Pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// Flush writes the queued memories, in order, and returns what was saved
// (and pruned from the index) and the errors of those that failed.
func (q *Queue) Flush() ([]AddResult, []error) {
	q.mu.Lock()
	items := q.items
	q.items = nil
	q.mu.Unlock()
	var out []AddResult
	var errs []error
	for _, m := range items {
		res, err := q.Store.Add(m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, res)
	}
	return out, errs
}
