package permissions

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/permission"
)

// explain decides one call as a session would and renders the one JSON line
// `hew permissions check` prints. In auto mode it reports the decision
// before the classifier runs and says so.
func explain(e *permission.Engine, tool string, input json.RawMessage, mode permission.Mode) ([]byte, error) {
	if len(strings.TrimSpace(string(input))) == 0 {
		input = json.RawMessage("{}")
	}
	if !json.Valid(input) {
		return nil, fmt.Errorf("JSON_INPUT is not valid JSON: %s", input)
	}
	var obj map[string]any
	if err := json.Unmarshal(input, &obj); err != nil {
		return nil, fmt.Errorf("JSON_INPUT must be a JSON object: %w", err)
	}
	if mode != "" && !permission.ValidMode(mode) {
		return nil, fmt.Errorf("unknown mode %q (want default, plan, acceptEdits, bypassPermissions, dontAsk or auto)", mode)
	}
	v := e.Check(permission.Request{Tool: tool, Input: input, Mode: mode})
	if v.Classify {
		v.Reason = "auto mode: a session would ask the classifier model before running this; without it the call waits for approval (" +
			strings.TrimSuffix(strings.TrimPrefix(v.Reason, "auto mode: the classifier decides ("), ")") + ")"
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding the decision: %w", err)
	}
	return out, nil
}
