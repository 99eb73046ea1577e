package anthropic

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
)

// cacheSim follows Anthropic's prompt-cache rules closely enough to judge
// where hew puts its breakpoints: the prefix is tools, then system, then
// message blocks; a cache_control marker writes the prefix ending at its
// block (if it has at least 1024 tokens); a marker finds a cached prefix
// ending at its own block or at one of the 20 block boundaries before it;
// at most four markers per request. Tokens are estimated as bytes/4 of
// each block's JSON. Tool search: a tool sent with defer_loading is not
// part of the prompt (no tokens, not in the prefix) until a tool_reference
// in a tool_result names it; the definition then counts there, where the
// API expands it.
type cacheSim struct {
	cached map[[32]byte]bool
	read   int
	write  int
	input  int
	misses int // requests that read nothing from the message part
}

func newCacheSim() *cacheSim { return &cacheSim{cached: map[[32]byte]bool{}} }

type simBlock struct {
	tokens int
	mark   bool
	hash   [32]byte // of the prefix ending with this block
}

// blocks flattens a wire request into prefix order.
func simBlocks(t *testing.T, body []byte) []simBlock {
	t.Helper()
	var w struct {
		Tools    []json.RawMessage `json:"tools"`
		System   []json.RawMessage `json:"system"`
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	var raw []json.RawMessage
	deferred := map[string]int{} // name → tokens of its definition
	for _, tl := range w.Tools {
		var d struct {
			Name  string `json:"name"`
			Defer bool   `json:"defer_loading"`
		}
		_ = json.Unmarshal(tl, &d)
		if d.Defer {
			deferred[d.Name] = max(len(tl)/4, 1)
			continue
		}
		raw = append(raw, tl)
	}
	raw = append(raw, w.System...)
	for _, m := range w.Messages {
		raw = append(raw, json.RawMessage(`{"role":"`+m.Role+`"}`)) // a role change is part of the prefix
		raw = append(raw, m.Content...)
	}
	h := sha256.New()
	out := make([]simBlock, 0, len(raw))
	for _, r := range raw {
		var probe struct {
			CacheControl json.RawMessage `json:"cache_control"`
		}
		_ = json.Unmarshal(r, &probe)
		var refs struct {
			Content []struct {
				Type     string `json:"type"`
				ToolName string `json:"tool_name"`
			} `json:"content"`
		}
		_ = json.Unmarshal(r, &refs) // fails for string content: no references
		expanded := 0
		for _, c := range refs.Content {
			if c.Type == "tool_reference" {
				tok, ok := deferred[c.ToolName]
				if !ok {
					t.Fatalf("tool_reference to %q, which is not sent with defer_loading", c.ToolName)
				}
				expanded += tok
			}
		}
		var plain map[string]any
		_ = json.Unmarshal(r, &plain)
		delete(plain, "cache_control") // the marker itself is not content
		b, _ := json.Marshal(plain)
		h.Write(b)
		var sum [32]byte
		copy(sum[:], h.Sum(nil))
		out = append(out, simBlock{tokens: max(len(b)/4, 1) + expanded, mark: len(probe.CacheControl) > 0, hash: sum})
	}
	return out
}

// request accounts one request and returns its cache_read share.
func (c *cacheSim) request(t *testing.T, body []byte) {
	t.Helper()
	bs := simBlocks(t, body)
	prefix := make([]int, len(bs)+1)
	for i, b := range bs {
		prefix[i+1] = prefix[i] + b.tokens
	}
	marks := 0
	read, lastMark := 0, -1
	for i, b := range bs {
		if !b.mark {
			continue
		}
		marks++
		lastMark = i
		for j := i; j >= 0 && j >= i-20; j-- {
			if c.cached[bs[j].hash] {
				read = max(read, prefix[j+1])
				break
			}
		}
	}
	if marks > 4 {
		t.Fatalf("%d cache_control markers; Anthropic allows 4", marks)
	}
	written := 0
	for i, b := range bs {
		if b.mark && prefix[i+1] >= 1024 {
			c.cached[b.hash] = true
		}
	}
	if lastMark >= 0 && prefix[lastMark+1] >= 1024 {
		written = max(prefix[lastMark+1]-read, 0)
	}
	c.read += read
	c.write += written
	c.input += prefix[len(bs)] - read - written
}

func (c *cacheSim) share() float64 {
	return float64(c.read) / float64(c.read+c.write+c.input)
}

// parallelReads is a session of turns × n parallel read_file calls, with
// a realistic system prompt and tool list; it returns the cached share of
// all input tokens.
func parallelReads(t *testing.T, turns, n int) (*cacheSim, float64) {
	return parallelReadsActivating(t, turns, n, -1, false)
}

// parallelReadsActivating is parallelReads where the answer of turn
// activate also loads the deferred tool web_fetch with tool_search. The
// client-side way, web_fetch joins the tool list from the next request
// and the result repeats its definition; natively (native), it is sent
// with defer_loading from the first request and the result references it.
func parallelReadsActivating(t *testing.T, turns, n, activate int, native bool) (*cacheSim, float64) {
	sim := newCacheSim()
	var tools []llm.ToolSpec
	for i := 0; i < 12; i++ {
		tools = append(tools, llm.ToolSpec{Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat("Describes what the tool does. ", 40),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}}}`)})
	}
	sys := []llm.SystemBlock{{Text: strings.Repeat("You are hew, a coding agent. ", 400), Cache: true}, {Text: "Environment: linux, /work/project", Cache: true}}
	msgs := []llm.Message{llm.UserText("Read the files of the package and explain them.")}
	webFetch := llm.ToolSpec{Name: "web_fetch", Description: "Fetches a URL and returns its text. " + strings.Repeat("Explains redirects, sizes and formats. ", 10),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}`)}
	var deferred []llm.ToolSpec
	if activate >= 0 {
		deferred = []llm.ToolSpec{webFetch}
	}
	id := 0
	for turn := 0; turn < turns; turn++ {
		a := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "Reading the next files."}}}
		u := llm.Message{Role: llm.RoleUser}
		if turn == activate {
			id++
			cid := fmt.Sprintf("toolu_%03d", id)
			text := "Loaded web_fetch; you can call it now."
			if !native {
				spec, _ := json.Marshal(webFetch)
				text += "\n<function>" + string(spec) + "</function>"
			}
			a.Content = append(a.Content, llm.Block{Type: llm.BlockToolUse, ID: cid, Name: "tool_search", Input: json.RawMessage(`{"query":"select:web_fetch"}`)})
			u.Content = append(u.Content, llm.Block{Type: llm.BlockToolResult, ID: cid, Content: text, ToolRefs: []string{"web_fetch"}})
			tools = append(tools, webFetch) // loaded: callable from now on
		}
		for k := 0; k < n; k++ {
			id++
			cid := fmt.Sprintf("toolu_%03d", id)
			a.Content = append(a.Content, llm.Block{Type: llm.BlockToolUse, ID: cid, Name: "tool_0", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"f%d.go"}`, id))})
			u.Content = append(u.Content, llm.Block{Type: llm.BlockToolResult, ID: cid, Content: strings.Repeat(fmt.Sprintf("line of file %d\n", id), 60)})
		}
		msgs = append(msgs, a, u)
		body, err := encodeRequest(&llm.Request{Model: "claude-sonnet-4", System: sys, Tools: tools, DeferredTools: deferred, Messages: msgs, Purpose: llm.PurposeMain},
			true, encOpts{native: native})
		if err != nil {
			t.Fatal(err)
		}
		sim.request(t, body)
	}
	return sim, sim.share()
}

// Two rolling message breakpoints (the previous request's end and the new
// one) keep the cached share near 90% at any parallelism (issue 12.12).
// With only the last message marked, 12 parallel reads put the new
// breakpoint 25 blocks past the cached one, beyond the 20-block lookback,
// and every request rebuilt the cache after the system prompt.
func TestCacheShareWithParallelCalls(t *testing.T) {
	for _, n := range []int{1, 4, 12, 30} {
		sim, share := parallelReads(t, 12, n)
		t.Logf("12 turns × %2d parallel reads: %.1f%% of input tokens read from the cache (read %d, write %d, uncached %d)",
			n, 100*share, sim.read, sim.write, sim.input)
		if share < 0.85 {
			t.Errorf("%d parallel reads: only %.1f%% cached", n, 100*share)
		}
	}
}

// Loading a deferred tool the client-side way changes the tool list,
// which leads the prefix: that request writes the system prompt and the
// whole conversation again (issue 12.13; /status reports such misses).
// Loaded natively (defer_loading + tool_reference) the tool list never
// changes and the cache holds: only the result's own tokens are new.
func TestDeferredActivationCost(t *testing.T) {
	base, baseShare := parallelReads(t, 12, 4)
	cs, csShare := parallelReadsActivating(t, 12, 4, 6, false)
	nat, natShare := parallelReadsActivating(t, 12, 4, 6, true)
	t.Logf("12 turns × 4 parallel reads, no load:            cached share %.1f%% (read %d, write %d, uncached %d)", 100*baseShare, base.read, base.write, base.input)
	t.Logf("load in turn 7, client-side (tool list grows):  cached share %.1f%% (read %d, write %d, uncached %d)", 100*csShare, cs.read, cs.write, cs.input)
	t.Logf("load in turn 7, native (defer_loading+reference): cached share %.1f%% (read %d, write %d, uncached %d)", 100*natShare, nat.read, nat.write, nat.input)
	t.Logf("tokens written again by the load: client-side %d, native %d", cs.write-base.write, nat.write-base.write)
	if csShare >= baseShare || cs.write-base.write < 5000 {
		t.Fatalf("client-side load cost nothing in the simulation: %.1f%% vs %.1f%%", 100*csShare, 100*baseShare)
	}
	if natShare <= csShare || nat.write-base.write > 1000 {
		t.Fatalf("native load still rebuilt the cache: %.1f%% (client-side %.1f%%), %d tokens written again", 100*natShare, 100*csShare, nat.write-base.write)
	}
}
