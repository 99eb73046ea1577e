package permission

import (
	"fmt"
	"strings"
)

// ParseMode accepts the SPEC's mode names (case-insensitively, and with
// dashes: accept-edits, dont-ask, bypass).
func ParseMode(s string) (Mode, error) {
	norm := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(s))
	for _, m := range []Mode{ModeDefault, ModePlan, ModeAcceptEdits, ModeBypass, ModeDontAsk, ModeAuto} {
		if norm == strings.ToLower(string(m)) {
			return m, nil
		}
	}
	switch norm {
	case "bypass", "yolo":
		return ModeBypass, nil
	}
	return "", fmt.Errorf("unknown permission mode %q (want default, plan, acceptEdits, bypassPermissions, dontAsk or auto)", s)
}
