package app

import (
	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/mcp"
	"github.com/hew-dev/hew/internal/ui/headless"
)

// mcpCmd runs `hew mcp list|add|remove|serve`. Only serve builds the tool
// pipeline; it needs no model.
func (a *cli) mcpCmd(args []string) int {
	root, err := projectRoot()
	if err != nil {
		return a.fail(err)
	}
	ctx, stop := signalContext()
	defer stop()
	deps := mcp.Deps{
		Context:   ctx,
		Root:      root,
		Home:      a.hewHome(),
		LookupEnv: a.env.lookup,
		Options:   mcp.Options{Env: a.environ, ClientName: "hew", ClientVersion: Version},
		Stdin:     a.stdin,
	}
	if len(args) > 0 && args[0] == "serve" && !helpWanted(args[1:]) {
		rt, err := a.loadSettings(&options{maxTurns: 50})
		if err != nil {
			return a.fail(err)
		}
		if err := a.buildTools(rt); err != nil {
			return a.fail(err)
		}
		defer rt.mcp.Close()
		// No one can be asked over MCP: what would ask is denied.
		deps.Executor = agent.NewExecutor(agent.Config{
			Tools:       rt.registry,
			Env:         rt.env,
			Permissions: rt.perms,
			Mode:        rt.mode,
			Approver:    headless.Denier{},
			Hooks:       rt.hooks,
		})
		deps.Registry = rt.registry
	}
	return mcp.Command(args, a.stdout, a.stderr, deps)
}
