package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/hew-dev/hew/internal/agent"
)

// answer is the JSON a hook may print (Claude Code's shape, plus the
// simpler top-level permissionDecision).
type answer struct {
	Continue           *bool           `json:"continue"`
	StopReason         string          `json:"stopReason"`
	Decision           string          `json:"decision"`
	Reason             string          `json:"reason"`
	SystemMessage      string          `json:"systemMessage"`
	PermissionDecision string          `json:"permissionDecision"`
	PermissionReason   string          `json:"permissionDecisionReason"`
	UpdatedInput       json.RawMessage `json:"updatedInput"`
	AdditionalContext  string          `json:"additionalContext"`
	Specific           *struct {
		PermissionDecision string          `json:"permissionDecision"`
		PermissionReason   string          `json:"permissionDecisionReason"`
		UpdatedInput       json.RawMessage `json:"updatedInput"`
		AdditionalContext  string          `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// parseAnswer turns a hook's stdout into an outcome; anything that is not
// a well-formed answer is an error (which blocks a PreToolUse call).
func parseAnswer(data []byte) (agent.HookOutcome, error) {
	var out agent.HookOutcome
	if len(data) == 0 || data[0] != '{' {
		return out, fmt.Errorf("expected a JSON object, got %q", clip(data))
	}
	var a answer
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&a); err != nil {
		return out, fmt.Errorf("bad JSON: %v", err)
	}
	if dec.More() {
		return out, fmt.Errorf("extra text after the JSON object")
	}
	perm, permReason := a.PermissionDecision, a.PermissionReason
	update, extra := a.UpdatedInput, a.AdditionalContext
	if s := a.Specific; s != nil {
		if s.PermissionDecision != "" {
			perm, permReason = s.PermissionDecision, s.PermissionReason
		}
		if len(s.UpdatedInput) > 0 {
			update = s.UpdatedInput
		}
		extra = joinLines(extra, s.AdditionalContext)
	}
	switch a.Decision {
	case "", "undefined":
	case "block", "deny":
		out.Block = true
		out.Reason = a.Reason
		if out.Reason == "" {
			out.Reason = "blocked by a hook (no reason given)"
		}
	case "approve", "allow":
		if perm == "" {
			perm, permReason = "allow", a.Reason
		}
	default:
		return out, fmt.Errorf("unknown decision %q (want block)", a.Decision)
	}
	switch perm {
	case "", "allow", "ask", "deny":
		out.Permission = perm
		if perm != "" {
			out.Reason = permReason
			if out.Reason == "" {
				out.Reason = "decided by a hook: " + perm
			}
		}
	default:
		return out, fmt.Errorf("unknown permissionDecision %q (want allow, ask or deny)", perm)
	}
	if n := bytes.TrimSpace(update); len(n) > 0 && !bytes.Equal(n, []byte("null")) {
		if n[0] != '{' || !json.Valid(n) {
			return out, fmt.Errorf("updatedInput must be a JSON object")
		}
		out.UpdatedInput = json.RawMessage(n)
	}
	out.AdditionalContext = extra
	out.Message = a.SystemMessage
	if a.Continue != nil && !*a.Continue {
		out.Stop = true
		if out.Reason == "" {
			out.Reason = a.StopReason
		}
	}
	return out, nil
}

func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// capped is a concurrency-safe buffer that keeps at most maxOutput bytes.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write keeps what fits and reports everything written, so the hook never
// blocks on a full pipe.
func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxOutput - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
		} else {
			c.buf.Write(p)
		}
	}
	return len(p), nil
}

// String returns what was kept.
func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
