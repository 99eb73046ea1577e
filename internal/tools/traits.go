package tools

import "encoding/json"

// The optional interfaces in this file are properties a tool declares about
// itself, so that other packages decide by property and never by a list of
// tool names: a new tool that declares one gets the behaviour with no list
// to update elsewhere.

// MainAgentOnly is implemented by tools that act on the main conversation
// itself — start sub-agents, switch the session's permission mode, schedule
// its next loop round — so a sub-agent is never given them.
type MainAgentOnly interface{ MainAgentOnly() bool }

// IsMainAgentOnly reports whether t declares MainAgentOnly.
func IsMainAgentOnly(t Tool) bool {
	m, ok := t.(MainAgentOnly)
	return ok && m.MainAgentOnly()
}

// RegistryBound is implemented by tools that work on the registry they are
// in (tool_search finds and loads its deferred tools). A registry made from
// another one, such as a sub-agent's, gets its own copy bound to it through
// Rebind; such a tool adds no power of its own, so a role's tool list never
// leaves it out.
type RegistryBound interface{ Rebind(r *Registry) Tool }

// Explorer is implemented by tools a read-only sub-agent (the explore, plan
// and verify roles) is given: they look at the project or the web without
// changing it. run_shell is one: such an agent decides its calls in plan
// mode, which lets only read-only commands through.
type Explorer interface{ Explores() bool }

// Explores reports whether t declares Explorer.
func Explores(t Tool) bool {
	e, ok := t.(Explorer)
	return ok && e.Explores()
}

// SelfTimed is implemented by tools that bound their own running time (a
// shell command's timeout, a sub-agent's turn limit), so the pipeline's
// per-call timeout does not apply to them; cancellation still does.
type SelfTimed interface{ SelfTimed() bool }

// IsSelfTimed reports whether t declares SelfTimed.
func IsSelfTimed(t Tool) bool {
	s, ok := t.(SelfTimed)
	return ok && s.SelfTimed()
}

// SessionOnly is implemented by tools that make sense only inside a hew
// session (its task list, its deferred tools, its sub-agents, its plan
// mode); `hew mcp serve` does not offer them to other programs.
type SessionOnly interface{ SessionOnly() bool }

// IsSessionOnly reports whether t declares SessionOnly.
func IsSessionOnly(t Tool) bool {
	s, ok := t.(SessionOnly)
	return ok && s.SessionOnly()
}

// Refetchable is implemented by tools whose result a later call can fetch
// again cheaply (a file read, a search, a listing): compaction may clear an
// old result of theirs and leave a note naming what to fetch again.
type Refetchable interface {
	Refetch(input json.RawMessage) Refetch
}

// Refetch names what one call of a Refetchable tool fetched.
type Refetch struct {
	// What names it in the note left in place of a cleared result (a path,
	// or the tool with its pattern); empty means the call cannot be
	// fetched again and its result stays.
	What string
	// File and Range, for a file read, let a later read of the same file
	// supersede this one: File as the call gave it, Range empty for a
	// whole-file read.
	File, Range string
}

// FileToucher is implemented by tools whose call reads or changes one file,
// so a summary of a conversation can list the files it read and changed.
type FileToucher interface {
	// Touches returns the file as the call names it ("" when none) and
	// whether the call changes it.
	Touches(input json.RawMessage) (path string, changes bool)
}
