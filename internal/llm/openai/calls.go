package openai

import (
	"crypto/rand"
	"encoding/json"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
)

// call is one tool call being assembled from deltas.
type call struct {
	idx     int // block index in the answer
	id      string
	name    string
	args    strings.Builder
	obj     json.RawMessage // arguments sent as an object
	input   json.RawMessage
	started bool
	gen     bool // id made up by hew
	done    bool
	bad     bool
	pending []string // argument pieces seen before the name
}

func (c *call) block() llm.Block {
	return llm.Block{Type: llm.BlockToolUse, ID: c.id, Name: c.name, Input: c.input}
}

// decoder assembles a Chat Completions stream.
type decoder struct {
	p        Profile
	emit     func(llm.Event)
	resp     llm.Response
	usage    llm.Usage
	finish   *string
	think    thinkSplitter
	thinking strings.Builder
	text     strings.Builder
	thinkIdx int
	textIdx  int
	blocks   int
	calls    []*call
	byIndex  map[int]*call
	last     *call
}

func newDecoder(p Profile, emit func(llm.Event)) *decoder {
	if emit == nil {
		emit = func(llm.Event) {}
	}
	d := &decoder{p: p, emit: emit, thinkIdx: -1, textIdx: -1, byIndex: map[int]*call{}}
	if !p.ThinkTags {
		d.think.state = 2
	}
	return d
}

// slot finds the call a tool_calls delta belongs to. Servers differ: the
// index may be missing (each named entry is then a new call), or always 0
// for parallel calls (a new id, or a new name once the previous arguments
// are complete, starts a new call).
func (d *decoder) slot(tc wireToolCall) *call {
	name := tc.Function.Name
	if tc.Index == nil {
		if tc.ID != "" {
			for _, c := range d.calls {
				if c.id == tc.ID {
					return c
				}
			}
			return d.newCall(-1, tc.ID)
		}
		if name != "" || d.last == nil {
			return d.newCall(-1, "")
		}
		return d.last
	}
	c := d.byIndex[*tc.Index]
	switch {
	case c == nil:
		return d.newCall(*tc.Index, tc.ID)
	case tc.ID != "" && c.id != "" && tc.ID != c.id && !c.gen:
		return d.newCall(*tc.Index, tc.ID)
	case name != "" && c.name != "" && c.argsComplete() && (tc.ID == "" || c.gen):
		return d.newCall(*tc.Index, "")
	}
	if c.id == "" && tc.ID != "" {
		c.id = tc.ID
	}
	return c
}

func (c *call) argsComplete() bool {
	if c.obj != nil {
		return true
	}
	_, ok := finalArgs(c.args.String())
	return ok && strings.TrimSpace(c.args.String()) != ""
}

func (d *decoder) newCall(index int, id string) *call {
	// The previous call is finished once another one starts; let it run early.
	if d.last != nil && !d.last.done && d.last.started && d.last.argsComplete() {
		_ = d.complete(d.last, false)
	}
	c := &call{idx: -1, id: id}
	d.calls = append(d.calls, c)
	if index >= 0 {
		d.byIndex[index] = c
	}
	d.last = c
	return c
}

// genPrefix marks ids hew made up for servers that send none.
const genPrefix = "call_"

func genID() string {
	var b [9]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alnum[int(b[i])%len(alnum)]
	}
	return genPrefix + string(b[:])
}

func (d *decoder) toolDelta(tc wireToolCall) error {
	c := d.slot(tc)
	if c.done && tc.Function.Name == "" && blankArgs(tc.Function.Arguments) {
		return nil // trailing whitespace for a call already handed over
	}
	if c.done {
		// More arguments for a call already handed over: it was not complete.
		return malformed("tool call %s (%s) received arguments after it was complete", c.id, c.name)
	}
	if tc.Function.Name != "" && c.name == "" {
		c.name = tc.Function.Name
	}
	piece := ""
	if a := tc.Function.Arguments; len(a) > 0 && string(a) != "null" {
		switch a[0] {
		case '"':
			if err := json.Unmarshal(a, &piece); err != nil {
				return malformed("tool call %s: arguments are not a string: %.80q", c.id, a)
			}
		case '{':
			c.obj = append(json.RawMessage(nil), a...)
		default:
			return malformed("tool call %s: arguments are neither a string nor an object: %.80q", c.id, a)
		}
	}
	if !c.started && c.name != "" {
		if c.id == "" {
			c.id, c.gen = genID(), true
		}
		c.started = true
		c.idx = d.nextIdx()
		d.emit(llm.Event{Type: llm.EvToolStart, Index: c.idx, Block: &llm.Block{Type: llm.BlockToolUse, ID: c.id, Name: c.name}})
		for _, p := range c.pending {
			d.emit(llm.Event{Type: llm.EvToolDelta, Index: c.idx, Text: p})
		}
		c.pending = nil
	}
	if piece != "" {
		c.args.WriteString(piece)
		if c.started {
			d.emit(llm.Event{Type: llm.EvToolDelta, Index: c.idx, Text: piece})
		} else {
			c.pending = append(c.pending, piece)
		}
	}
	return nil
}

// complete parses a call's arguments and announces it. A call that does not
// parse is dropped when the answer hit the output limit, else it is an error.
func (d *decoder) complete(c *call, truncated bool) error {
	c.done = true
	if c.name == "" {
		if truncated {
			c.bad = true
			return nil
		}
		return malformed("tool call %q has no function name", c.id)
	}
	raw := c.args.String()
	if c.obj != nil {
		raw = string(c.obj)
	}
	in, ok := finalArgs(raw)
	if !ok {
		if truncated {
			c.bad = true
			return nil
		}
		return malformed("tool call %s (%s): arguments are not a JSON object: %.120q", c.id, c.name, raw)
	}
	c.input = in
	b := c.block()
	d.emit(llm.Event{Type: llm.EvToolDone, Index: c.idx, Block: &b})
	return nil
}

// blankArgs reports arguments that add nothing: absent, null, or a string
// of whitespace.
func blankArgs(a json.RawMessage) bool {
	if len(a) == 0 || string(a) == "null" {
		return true
	}
	var s string
	return json.Unmarshal(a, &s) == nil && strings.TrimSpace(s) == ""
}
