package app

import (
	"fmt"
	"io"
	"strings"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/permission"
)

// loadTrusted loads the settings of root and settles the project's trust:
// an interactive run asks about settings that would run code or widen
// permissions (and remembers a yes); a headless one ignores them with a
// notice on stderr. --trust-project applies them without asking.
func (a *cli) loadTrusted(root string, trustFlag, interactive bool) (*config.Settings, error) {
	p := config.Paths{Home: a.hewHome(), Project: root, TrustProject: trustFlag, UserHome: a.homeDir()}
	s, err := config.Load(p)
	if err != nil {
		return nil, err
	}
	for _, en := range s.WithheldRules() {
		// Not applied, but a mistake in them is still a mistake.
		if _, err := permission.ParseRule(en.Rule, a.homeDir()); err != nil {
			return nil, fmt.Errorf("%s: invalid permission rule %q in the allow list: %w", en.Where(), en.Rule, err)
		}
	}
	if !s.Trust.Pending() {
		return s, nil
	}
	if interactive {
		fmt.Fprint(a.stderr, s.Trust.Prompt())
		if yes(readLine(a.stdin)) {
			if err := config.RecordTrust(p.Home, s.Trust); err != nil {
				fmt.Fprintf(a.stderr, "hew: could not remember the trust (%v); applying it for this run\n", err)
				p.TrustProject = true
			}
			// Read again: only what is on disk now, and matches what was
			// shown, applies.
			if s, err = config.Load(p); err != nil || !s.Trust.Pending() {
				return s, err
			}
		}
	}
	fmt.Fprintf(a.stderr, "hew: %s\n", s.Trust.Notice())
	return s, nil
}

// readLine reads one line byte by byte, so nothing after it is consumed
// from a terminal that the session reads next.
func readLine(r io.Reader) string {
	var b strings.Builder
	buf := make([]byte, 1)
	for b.Len() < 256 {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				break
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			break
		}
	}
	return strings.TrimSpace(b.String())
}

func yes(s string) bool {
	switch strings.ToLower(s) {
	case "y", "yes":
		return true
	}
	return false
}
