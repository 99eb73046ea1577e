package app

import (
	"github.com/hew-dev/hew/internal/cmd/cmdutil"
	mcpcmd "github.com/hew-dev/hew/internal/cmd/mcp"
	rootcmd "github.com/hew-dev/hew/internal/cmd/root"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/mcp"
	"github.com/hew-dev/hew/internal/term"
)

// mcpCmd runs `hew mcp list|add|remove|serve`. Only serve builds the tool
// pipeline; it needs no model.
func (a *cli) mcpCmd(args []string) int {
	root, err := projectRoot()
	if err != nil {
		return a.fail(err)
	}
	ctx, stop := term.InterruptContext()
	defer stop()
	cmdOpts := mcpcmd.Options{
		Context:   ctx,
		Root:      root,
		Home:      a.hewHome(),
		LookupEnv: a.lookup,
		Manager:   mcp.Options{Env: a.environ, ClientName: "hew", ClientVersion: Version},
		Stdin:     a.stdin,
		UserHome:  a.homeDir(),
		Stdout:    a.stdout,
		Stderr:    a.stderr,
		// Only a trusted project's servers are started to be listed.
		Settings: func() (*config.Settings, error) { return a.loadTrusted(root, false, false) },
		KeepTrust: func(write func() error) error {
			// The user is adding this server: a trusted project stays trusted.
			return config.KeepTrust(config.Paths{Home: a.hewHome(), Project: root, UserHome: a.homeDir()}, write)
		},
	}
	if len(args) > 0 && args[0] == "serve" && !cmdutil.WantsHelp(args[1:]) {
		perms, trust, err := mcpcmd.ServeFlags(args[1:])
		if err != nil {
			return a.fail(usageErr(err))
		}
		// stdin is the protocol: nobody can be asked.
		rt, err := a.loadSettings(&rootcmd.Options{Perms: perms, TrustProject: trust, Print: true})
		if err != nil {
			return a.fail(err)
		}
		if err := a.buildTools(rt); err != nil {
			return a.fail(err)
		}
		defer rt.c.MCP.Close()
		cmdOpts.Executor, cmdOpts.Registry = rt.c.Executor(mcpcmd.ServeHint), rt.c.Registry
	}
	return mcpcmd.Run(cmdOpts, args)
}
