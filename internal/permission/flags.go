package permission

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Flags are what the command line adds to a session's permissions (and
// `hew mcp serve`'s): the mode, rules and directories of this run only.
type Flags struct {
	Modes ModeFlags
	// Allowed and Disallowed are --allowed-tools and --disallowed-tools.
	Allowed, Disallowed []string
	// AddDirs are --add-dir: like additionalDirectories, for this run.
	AddDirs []string
}

// Check reports flags no session can start with: two modes, an empty
// rule, an --add-dir that is not a directory ("~/…" is the engine's to
// expand against the home directory).
func (f Flags) Check() error {
	if _, err := f.Modes.Pick(); err != nil {
		return err
	}
	for _, r := range append(append([]string{}, f.Allowed...), f.Disallowed...) {
		if strings.TrimSpace(r) == "" {
			return errors.New("--allowed-tools / --disallowed-tools need at least one rule")
		}
	}
	for _, d := range f.AddDirs {
		if strings.HasPrefix(d, "~") {
			continue
		}
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return fmt.Errorf("--add-dir %s: not a directory", d)
		}
	}
	return nil
}

// Apply adds the flags' rules and directories to o.
func (f Flags) Apply(o *Options) {
	o.AllowedTools, o.DisallowedTools, o.AdditionalDirs = f.Allowed, f.Disallowed, f.AddDirs
}
