package tools

import (
	"sort"
	"sync"

	"github.com/hew-dev/hew/internal/llm"
)

// Registry holds the tools of a session. The spec list it produces is
// deterministic byte for byte: built-in order first, then activated deferred
// tools in activation order, so activation only appends.
type Registry struct {
	mu        sync.RWMutex
	tools     map[string]Tool
	order     []string                // registration order of non-deferred tools
	activated []string                // deferred tools loaded by tool_search, in order
	deferred  []string                // registration order of deferred tools
	schemas   map[string]*schemaEntry // compiled input schemas, for Validate
	// native reports whether the model loads deferred definitions natively
	// (llm.DefersNatively), so tool_search need not repeat them as text.
	native func() bool
}

// NewRegistry makes an empty registry.
func NewRegistry() *Registry { return &Registry{tools: map[string]Tool{}} }

// Register adds t; a later tool with the same name replaces the earlier one.
func (r *Registry) Register(t Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := t.Name()
	if _, dup := r.tools[name]; !dup {
		if isDeferred(t) {
			r.deferred = append(r.deferred, name)
		} else {
			r.order = append(r.order, name)
		}
	}
	r.tools[name] = t
}

// SetNativeLoading tells the registry how to ask whether the model loads
// deferred definitions natively (the agent asks its provider).
func (r *Registry) SetNativeLoading(f func() bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.native = f
}

// LoadsNatively reports whether loading a deferred tool reaches the model
// by reference (tool definitions sent deferred from the first request).
func (r *Registry) LoadsNatively() bool {
	r.mu.RLock()
	f := r.native
	r.mu.RUnlock()
	return f != nil && f()
}

// DeferredSpecs is every deferred tool, loaded or not, in registration
// order (llm.Request.DeferredTools): the same list before and after a load.
func (r *Registry) DeferredSpecs() []llm.ToolSpec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]llm.ToolSpec, 0, len(r.deferred))
	for _, n := range r.deferred {
		if t := r.tools[n]; isDeferred(t) {
			out = append(out, llm.ToolSpec{Name: n, Description: t.Description(), InputSchema: t.Schema()})
		}
	}
	return out
}

// Get returns the tool named name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Activate makes a deferred tool visible to the model from now on.
// It reports false when there is no such deferred tool.
func (r *Registry) Activate(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.tools[name]
	if !ok || !isDeferred(t) {
		return ok
	}
	for _, n := range r.activated {
		if n == name {
			return true
		}
	}
	r.activated = append(r.activated, name)
	return true
}

// Deferred lists the names of deferred tools not yet activated, sorted.
func (r *Registry) Deferred() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Tool
	for name, t := range r.tools {
		if isDeferred(t) && !contains(r.activated, name) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// All lists every tool, visible or deferred, sorted by name.
func (r *Registry) All() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Specs is the tool list sent to the model.
func (r *Registry) Specs() []llm.ToolSpec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]llm.ToolSpec, 0, len(r.order)+len(r.activated))
	for _, names := range [][]string{r.order, r.activated} {
		for _, n := range names {
			t := r.tools[n]
			out = append(out, llm.ToolSpec{Name: n, Description: t.Description(), InputSchema: t.Schema()})
		}
	}
	return out
}

// Names lists the names of the visible tools in spec order.
func (r *Registry) Names() []string {
	specs := r.Specs()
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}

// Visible reports whether the model can currently call name.
func (r *Registry) Visible(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return ok && (!isDeferred(t) || contains(r.activated, name))
}

func isDeferred(t Tool) bool {
	d, ok := t.(Deferred)
	return ok && d.Deferred()
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
