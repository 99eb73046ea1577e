package anthropic

import (
	"bytes"
	"slices"
	"sync"

	"github.com/hew-dev/hew/internal/llm"
)

// msgCache keeps the wire encoding of messages already sent. A history
// only grows while the prompt cache is warm, so every request would
// otherwise encode the whole conversation again: at 1,000 messages that is
// most of the cost of a request. A message is known by its content slice
// (the agent copies the history, not the blocks) and checked block by
// block against what was encoded (strings compare by pointer first, so the
// check is cheap), so a message changed in place is encoded again. A nil
// cache encodes everything.
type msgCache struct {
	mu      sync.Mutex
	gen     uint64
	entries map[msgKey]*msgEntry
}

type msgKey struct {
	first  *llm.Block
	n      int
	replay bool
	refs   uint64 // encOpts.refsKey: which tool references the encoding holds
	role   llm.Role
}

type msgEntry struct {
	blocks []llm.Block
	enc    []byte
	hash   uint64 // of enc, the message's wire fingerprint
	gen    uint64
}

func newMsgCache() *msgCache { return &msgCache{entries: map[msgKey]*msgEntry{}} }

func keyOf(m llm.Message, opts encOpts) (msgKey, bool) {
	if len(m.Content) == 0 {
		return msgKey{}, false
	}
	return msgKey{first: &m.Content[0], n: len(m.Content), replay: opts.replayUnsigned, refs: opts.refsKey, role: m.Role}, true
}

// begin starts a request and returns its generation.
func (c *msgCache) begin() uint64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	return c.gen
}

// get returns the encoding of m and its hash, or nil.
func (c *msgCache) get(m llm.Message, opts encOpts, gen uint64) ([]byte, uint64) {
	if c == nil {
		return nil, 0
	}
	k, ok := keyOf(m, opts)
	if !ok {
		return nil, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[k]
	if e == nil || !sameBlocks(e.blocks, m.Content) {
		return nil, 0
	}
	e.gen = gen
	return e.enc, e.hash
}

// put remembers the encoding of m.
func (c *msgCache) put(m llm.Message, opts encOpts, enc []byte, hash, gen uint64) {
	if c == nil {
		return
	}
	k, ok := keyOf(m, opts)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[k] = &msgEntry{blocks: append([]llm.Block(nil), m.Content...), enc: enc, hash: hash, gen: gen}
}

// end drops messages no recent request used, so the cache stays the size
// of the histories being sent (a sub-agent's next to the main one's).
func (c *msgCache) end(gen uint64, used int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) <= 2*used+64 {
		return
	}
	for k, e := range c.entries {
		if e.gen+4 < gen {
			delete(c.entries, k)
		}
	}
}

func sameBlocks(a, b []llm.Block) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Type != y.Type || x.Text != y.Text || x.Signature != y.Signature || x.Data != y.Data ||
			x.MediaType != y.MediaType || x.ID != y.ID || x.WireID != y.WireID || x.Name != y.Name ||
			x.Content != y.Content || x.IsError != y.IsError || !bytes.Equal(x.Input, y.Input) ||
			!slices.Equal(x.ToolRefs, y.ToolRefs) {
			return false
		}
	}
	return true
}
