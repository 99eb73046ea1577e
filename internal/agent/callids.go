package agent

import (
	"fmt"
	"slices"

	"github.com/hew-dev/hew/internal/llm"
)

// callIDs makes tool-call ids unique in the session as an answer comes
// in. OpenAI-compatible servers that number calls per answer (call_0 each
// time) would otherwise put one id in the history twice, which breaks the
// pairing invariant (and compaction's health check with it). A repeated id
// gets a fresh one before anything runs (so results, events and result
// files all use it); the provider's own id is kept as WireID for the wire.
type callIDs struct {
	seen map[string]bool   // ids in the history
	m    map[string]string // provider id -> session id, for this answer
	n    int
}

func newCallIDs(history []llm.Message) *callIDs {
	c := &callIDs{seen: map[string]bool{}, m: map[string]string{}}
	for _, msg := range history {
		for _, b := range msg.Content {
			if b.Type == llm.BlockToolUse {
				c.seen[b.ID] = true
			}
		}
	}
	return c
}

// reset forgets the answer's ids (its attempt was retried).
func (c *callIDs) reset() {
	if c != nil {
		c.m = map[string]string{}
	}
}

// unique maps a provider id to the id used in the session.
func (c *callIDs) unique(pid string) string {
	if id, ok := c.m[pid]; ok {
		return id
	}
	id := pid
	if pid == "" || c.seen[pid] || c.taken(pid) {
		base := pid
		if base == "" {
			base = "call"
		}
		for {
			c.n++
			id = fmt.Sprintf("%s_h%d", base, c.n)
			if !c.seen[id] && !c.taken(id) {
				break
			}
		}
	}
	c.m[pid] = id
	return id
}

// taken reports whether id was already given to another call of this answer.
func (c *callIDs) taken(id string) bool {
	for _, v := range c.m {
		if v == id {
			return true
		}
	}
	return false
}

// block renames a tool_use block.
func (c *callIDs) block(b llm.Block) llm.Block {
	if c == nil || b.Type != llm.BlockToolUse {
		return b
	}
	if id := c.unique(b.ID); id != b.ID {
		b.WireID, b.ID = b.ID, id
	}
	return b
}

// apply renames the tool_use blocks of a finished answer.
func (c *callIDs) apply(resp *llm.Response) *llm.Response {
	if c == nil || resp == nil {
		return resp
	}
	renamed := false
	for _, b := range resp.Message.Content {
		if b.Type == llm.BlockToolUse && c.unique(b.ID) != b.ID {
			renamed = true
		}
	}
	if !renamed {
		return resp
	}
	cp := *resp
	cp.Message.Content = slices.Clone(resp.Message.Content)
	for i, b := range cp.Message.Content {
		cp.Message.Content[i] = c.block(b)
	}
	return &cp
}
