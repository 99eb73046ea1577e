package app

import (
	"fmt"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/term"
)

// loadTrusted loads the settings of root and settles the project's trust
// (config.Settle): an interactive run asks on the terminal, a headless one
// ignores what is not trusted with a notice on stderr; --trust-project
// applies it without asking.
func (a *cli) loadTrusted(root string, trustFlag, interactive bool) (*config.Settings, error) {
	p := config.Paths{Home: a.hewHome(), Project: root, TrustProject: trustFlag, UserHome: a.homeDir()}
	s, err := config.Load(p)
	if err == nil {
		err = permission.CheckWithheld(s, p.UserHome)
	}
	if err != nil {
		return nil, err
	}
	var confirm func(string) bool
	if interactive {
		confirm = func(q string) bool { return term.Confirm(a.stdin, a.stderr, q) }
	}
	return config.Settle(p, s, confirm, func(line string) { fmt.Fprintf(a.stderr, "hew: %s\n", line) })
}
