package permission

import (
	"errors"
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

// ModeFlags are the command-line ways of naming a mode: --permission-mode
// and its shorthands. Sessions and `hew mcp serve` take the same ones.
type ModeFlags struct {
	Mode                                   string // --permission-mode
	Plan, AcceptEdits, Yolo, DontAsk, Auto bool
}

// Pick returns the one mode the flags name, "" when none; naming two is an
// error.
func (f ModeFlags) Pick() (Mode, error) {
	var picked []Mode
	if f.Mode != "" {
		m, err := ParseMode(f.Mode)
		if err != nil {
			return "", err
		}
		picked = append(picked, m)
	}
	for _, s := range []struct {
		on bool
		m  Mode
	}{{f.Plan, ModePlan}, {f.AcceptEdits, ModeAcceptEdits}, {f.Yolo, ModeBypass}, {f.DontAsk, ModeDontAsk}, {f.Auto, ModeAuto}} {
		if s.on {
			picked = append(picked, s.m)
		}
	}
	switch len(picked) {
	case 0:
		return "", nil
	case 1:
		return picked[0], nil
	}
	return "", errors.New("give only one permission mode (--permission-mode, --plan, --accept-edits, --yolo, --dont-ask, --auto)")
}
