package app

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/core"
	"github.com/hew-dev/hew/internal/fsutil"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/pick"
	"github.com/hew-dev/hew/internal/mcp"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/plan"
	"github.com/hew-dev/hew/internal/sandbox"
	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/skills"
	"github.com/hew-dev/hew/internal/subagent"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/tools"
	skilltool "github.com/hew-dev/hew/internal/tools/skill"
	"github.com/hew-dev/hew/internal/ui/repl"
)

// parts are what a run is built from before its front-end is known: where
// it runs, the settings and the tool side. newSession assembles them with
// the provider into a core.Session; `hew mcp serve` uses the tool side alone.
type parts struct {
	o        *options
	root     string // project root: the working directory hew started in
	home     string // $HEW_HOME
	homeDir  string
	stateDir string // $HEW_HOME/projects/KEY

	settings *config.Settings
	mode     permission.Mode
	perms    agent.PermissionChecker
	hooks    agent.HookRunner
	registry *tools.Registry
	env      *tools.Env
	mcp      *mcp.Manager
	skills   []skills.Skill
	roles    map[string]subagent.Role

	// notices are one-line warnings gathered while building (sandbox off,
	// settings warnings), shown by the front-end before the first turn.
	notices []string
	// sandboxLine describes run_shell's confinement for the prompt.
	sandboxLine string
	// sandbox confines run_shell; the session answers its questions.
	sandbox *sandbox.Sandbox
}

// frontEnd is what a front-end gives the session: who answers approval
// questions (nil: nobody, what would ask is denied) and who gets the events.
type frontEnd struct {
	ask  agent.Approver
	emit func(agent.Event)
	// plan asks what to do with a finished plan; nil in headless runs.
	plan plan.Decider
}

// newSession builds everything for o and assembles the session; front
// makes the front-end once the settings are known. Errors
// are usage errors (exit 2) when the user can fix them in flags,
// environment or settings.
func (a *cli) newSession(o *options, front func(*config.Settings) frontEnd) (*core.Session, error) {
	p, err := a.loadSettings(o)
	if err != nil {
		return nil, err
	}
	prov, err := a.chooseProvider(o, p.settings.Provider, p.settings.Model)
	if err != nil {
		return nil, usageErr(err)
	}
	provider, err := a.newProvider(prov)
	if err != nil {
		return nil, usageErr(err)
	}
	if err := a.buildTools(p); err != nil {
		return nil, err
	}
	resume, err := a.resumePath(p)
	if err != nil {
		return nil, err
	}
	fe := front(p.settings)
	return core.New(core.Options{
		Root: p.root, HewHome: p.home, HomeDir: p.homeDir,
		Provider: provider, ProviderName: prov.Name, Model: prov.Model,
		NewProvider: func(model string) (llm.Provider, error) {
			c := prov
			c.Model = model
			return a.newProvider(c)
		},
		Mode: p.mode, Permissions: p.perms, Hooks: p.hooks,
		Registry: p.registry, Env: p.env, MCP: p.mcp, Skills: p.skills, Roles: p.roles,
		Approver: fe.ask, Emit: fe.emit, DecidePlan: fe.plan,
		Hint:               "allow it with --allowed-tools, a mode such as --accept-edits, or a rule in .hew/settings.json",
		MaxTurns:           o.maxTurns,
		MaxBudgetTokens:    o.maxBudgetTokens,
		MaxCostUSD:         o.maxCostUSD,
		ContextWindow:      p.settings.ContextWindow,
		CompactThreshold:   p.settings.CompactThreshold,
		AutoCompact:        p.settings.AutoCompact,
		AppendSystemPrompt: o.appendSystemPrompt,
		SystemPrompt:       o.systemPrompt,
		Shell:              a.getenv("SHELL"),
		GOOS:               runtime.GOOS,
		Goal:               o.goal,
		GoalBudget: core.GoalBudget{MaxRounds: p.settings.Autonomy.GoalMaxRounds, MaxTokens: p.settings.Autonomy.GoalMaxTokens,
			MaxCostUSD: p.settings.Autonomy.GoalMaxCostUSD, MaxWall: p.settings.Autonomy.GoalMaxWall},
		LoopBudget:  core.LoopBudget{MaxIterations: p.settings.Autonomy.LoopMaxIterations, MaxCostUSD: p.settings.Autonomy.LoopMaxCostUSD},
		ResumePath:  resume,
		Version:     Version,
		Sandbox:     p.sandboxLine,
		Trust:       p.settings.Trust.Summary(),
		Confinement: p.sandbox,
		Notices:     p.notices,
		Checkpoints: a.checkpointStore(p.root, p.settings),

		MemoryFailureCapture: p.settings.MemoryFailureCapture,
		MemorySemanticRecall: p.settings.MemorySemanticRecall,
	})
}

// loadSettings starts the parts: where the run is, its settings and mode.
func (a *cli) loadSettings(o *options) (*parts, error) {
	root, err := projectRoot()
	if err != nil {
		return nil, err
	}
	p := &parts{o: o, root: root, home: a.hewHome(), homeDir: a.homeDir()}
	p.stateDir = session.ProjectDir(p.home, root)
	p.settings, err = a.loadTrusted(root, o.trustProject, !o.print && term.ClassifyStdin(a.stdin) == term.StdinTerminal)
	if err != nil {
		return nil, usageErr(err)
	}
	p.notices = append(p.notices, p.settings.Warnings...)
	if err := p.settings.MCPJSONError; err != nil {
		p.notices = append(p.notices, err.Error())
	}
	p.mode, _ = o.modes.Pick()
	if p.mode == "" {
		if p.mode, err = permission.ParseMode(p.settings.Permissions.DefaultMode); err != nil {
			return nil, usagef("permissions.defaultMode in settings: %v", err)
		}
	}
	return p, nil
}

// buildTools makes the tool side: environment, permissions, hooks, shell
// runner, built-in tools, skills and the (unstarted) MCP servers.
func (a *cli) buildTools(p *parts) error {
	p.env = &tools.Env{
		Root:     p.root,
		HomeDir:  p.homeDir,
		StateDir: p.stateDir,
		Env:      pick.WithoutCredentials(a.environ),
		Reads:    tools.NewReadTracker(),
	}
	if err := a.wireBrakes(p); err != nil {
		return err
	}
	p.registry = tools.NewRegistry()
	tools.RegisterBuiltins(p.registry)
	cat := skills.Scan(skills.Roots{Project: p.root, Home: p.homeDir, HewHome: p.home})
	p.skills = cat.Skills
	for _, pr := range cat.Problems {
		p.notices = append(p.notices, pr.String()) // reported once, before the first turn
	}
	if len(p.skills) > 0 {
		// Without a session (hew mcp serve) fork skills are refused; the
		// session registers its own skill tool that runs them.
		p.registry.Register(skilltool.New(p.skills, nil))
	}
	var roleProblems []string
	p.roles, roleProblems = subagent.LoadRoles(filepath.Join(p.home, "agents"), filepath.Join(p.root, ".hew", "agents"))
	p.notices = append(p.notices, roleProblems...)
	p.mcp = mcp.NewManager(mcp.LoadConfig(mcp.ConfigOptions{
		Root:      p.root,
		Settings:  mcp.FromSettings(p.settings.MCPServers, p.home),
		NoMCPJSON: true, // config read it, subject to the project's trust
		Files:     p.o.mcpConfig,
		LookupEnv: a.lookup,
	}), mcp.Options{Env: a.environ, Stderr: fsutil.NewLazyFile(filepath.Join(p.stateDir, "mcp.log")), ClientName: "hew", ClientVersion: Version})
	return nil
}

// resumePath is the session file -c/--resume names ("" for a new session).
func (a *cli) resumePath(p *parts) (string, error) {
	dir := session.Dir(p.home, p.root)
	switch {
	case p.o.cont:
		path, err := session.Latest(dir)
		if err != nil {
			return "", err
		}
		if path == "" {
			return "", usagef("no session to continue in %s (sessions are kept per working directory)", p.root)
		}
		return path, nil
	case p.o.resumeSet && p.o.resume != resumePick:
		path, err := session.Find(p.home, p.o.resume)
		return path, usageErr(err)
	case p.o.resumeSet:
		return a.pickSession(dir, p.root)
	}
	return "", nil
}

// pickSession resolves a bare --resume: the only session of this directory,
// or a numbered choice when stdin is a terminal.
func (a *cli) pickSession(dir, root string) (string, error) {
	list, err := session.List(dir)
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", usagef("no sessions in %s", root)
	}
	if len(list) == 1 {
		return list[0].Path, nil
	}
	if term.ClassifyStdin(a.stdin) != term.StdinTerminal {
		var b strings.Builder
		for _, s := range list {
			fmt.Fprintf(&b, "\n  %s  %s  %s", s.ID, s.Modified.Local().Format("2006-01-02 15:04"), s.Title)
		}
		return "", usagef("--resume needs a session id here; sessions of this directory:%s", b.String())
	}
	path, ok := repl.PickSession(a.stdin, a.stderr, list, time.Now)
	if !ok {
		return "", usagef("no session picked")
	}
	return path, nil
}

// closeSession releases the session, reporting a session file that could
// not be written.
func (a *cli) closeSession(s *core.Session) {
	if err := s.Close(); err != nil {
		fmt.Fprintf(a.stderr, "hew: %v\n", err)
	}
}
