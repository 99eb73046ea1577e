package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hew-dev/hew/internal/netproxy"
)

// Receipt is the audit record of one tool call: what was asked, who allowed
// it, how long it ran and where its full output lives. Receipts go to the
// session file (Recorder.Record("receipt", …)) and ride on ToolFinished.
type Receipt struct {
	ToolUseID string          `json:"tool_use_id"`
	Tool      string          `json:"tool"`
	Input     json.RawMessage `json:"input"` // long string values shortened
	// Decision is allow or deny; DecidedBy is where it came from (rule,
	// mode, user, hook, classifier, validation…).
	Decision  string    `json:"decision"`
	DecidedBy string    `json:"decided_by,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	// ResultBytes is the size of the full result before shaping.
	ResultBytes int  `json:"result_bytes"`
	IsError     bool `json:"is_error"`
	// StoredAt is the file holding the full result when it was too large
	// for the context.
	StoredAt string `json:"stored_at,omitempty"`
	// Panic holds the recovered panic value when the tool crashed.
	Panic string `json:"panic,omitempty"`
	// Checkpoint is the turn checkpoint this call's changes belong to
	// (for /undo) and Changed the files it changed.
	Checkpoint string   `json:"checkpoint,omitempty"`
	Changed    []string `json:"changed,omitempty"`
	// Network are the connections the call's command made through the
	// sandbox's proxy.
	Network []netproxy.Receipt `json:"network,omitempty"`
}

// Summary is the receipt as one line for --verbose: the decision and who
// made it, the time taken, the full result's size and where it is stored.
func (r *Receipt) Summary() string {
	if r == nil {
		return ""
	}
	var parts []string
	if r.Decision != "" {
		d := r.Decision
		if r.DecidedBy != "" {
			d += " by " + r.DecidedBy
		}
		parts = append(parts, d)
	}
	if !r.End.IsZero() && !r.Start.IsZero() {
		parts = append(parts, r.End.Sub(r.Start).Round(time.Millisecond).String())
	}
	parts = append(parts, fmt.Sprintf("%d bytes", r.ResultBytes))
	if r.StoredAt != "" {
		parts = append(parts, "full result: "+r.StoredAt)
	}
	if len(r.Changed) > 0 {
		parts = append(parts, fmt.Sprintf("changed %s (checkpoint %s)", strings.Join(r.Changed, ", "), r.Checkpoint))
	}
	if len(r.Network) > 0 {
		parts = append(parts, "network: "+netproxy.Summarize(r.Network))
	}
	return strings.Join(parts, " · ")
}

// receiptValueLimit is how many characters of one input string a receipt keeps.
const receiptValueLimit = 200

// shortenInput returns input with every string value longer than limit
// characters cut to its head and a note of the original length.
func shortenInput(input json.RawMessage, limit int) json.RawMessage {
	if len(input) <= limit {
		return input
	}
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return mustJSON(shortenString(string(input), limit))
	}
	out, err := json.Marshal(shortenValue(v, limit))
	if err != nil {
		return input
	}
	return out
}

func shortenValue(v any, limit int) any {
	switch x := v.(type) {
	case string:
		return shortenString(x, limit)
	case map[string]any:
		for k, e := range x {
			x[k] = shortenValue(e, limit)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = shortenValue(e, limit)
		}
		return x
	}
	return v
}

func shortenString(s string, limit int) string {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	r := []rune(s)
	return fmt.Sprintf("%s…(%d chars)", string(r[:limit]), n)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}
