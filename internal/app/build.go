package app

import (
	"errors"
	"fmt"
	rootcmd "github.com/hew-dev/hew/internal/cmd/root"
	"path/filepath"
	"runtime"
	"time"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/core"
	"github.com/hew-dev/hew/internal/fsutil"
	"github.com/hew-dev/hew/internal/hooks"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/pick"
	"github.com/hew-dev/hew/internal/mcp"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/skills"
	"github.com/hew-dev/hew/internal/subagent"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/tools"
	skilltool "github.com/hew-dev/hew/internal/tools/skill"
	"github.com/hew-dev/hew/internal/ui/repl"
)

// parts are what a run is built from before its front-end is known: its
// flags and settings, and the session options built so far (where it runs,
// the mode and the tool side). newSession completes them with the provider
// and the front-end; `hew mcp serve` runs the tool side alone.
type parts struct {
	o        *rootcmd.Options
	stateDir string // $HEW_HOME/projects/KEY
	settings *config.Settings
	c        core.Options
}

// newSession builds everything for o and assembles the session; front
// makes the front-end once the settings are known and gives the session
// its part: who answers approval questions (none: what would ask is
// denied), who gets the events and who decides about a finished plan.
// Errors are usage errors (exit 2) when the user can fix them in flags,
// environment or settings.
func (a *cli) newSession(o *rootcmd.Options, front func(*config.Settings, *core.Options)) (*core.Session, error) {
	p, err := a.loadSettings(o)
	if err != nil {
		return nil, err
	}
	prov, err := a.chooseProvider(o, p.settings.Provider, p.settings.Model)
	if err != nil {
		return nil, usageErr(err)
	}
	if p.c.Provider, err = a.newProvider(prov); err != nil {
		return nil, usageErr(err)
	}
	if err := a.buildTools(p); err != nil {
		return nil, err
	}
	if p.c.ResumePath, err = a.resumePath(p); err != nil {
		return nil, err
	}
	c := &p.c
	front(p.settings, c)
	c.ProviderName, c.Model = prov.Name, prov.Model
	c.NewProvider = func(model string) (llm.Provider, error) {
		c := prov
		c.Model = model
		return a.newProvider(c)
	}
	c.Hint = "allow it with --allowed-tools, a mode such as --accept-edits, or a rule in .hew/settings.json"
	c.MaxTurns, c.MaxBudgetTokens, c.MaxCostUSD = o.MaxTurns, o.MaxBudgetTokens, o.MaxCostUSD
	c.AppendSystemPrompt = o.AppendSystemPrompt
	c.SystemPrompt = o.SystemPrompt
	c.Goal = o.Goal
	c.Shell = a.getenv("SHELL")
	c.GOOS = runtime.GOOS
	c.Version = Version
	c.Checkpoints = a.checkpointStore(c.Root, p.settings)
	c.ApplySettings(p.settings)
	return core.New(p.c)
}

// loadSettings starts the parts: where the run is, its settings and mode.
func (a *cli) loadSettings(o *rootcmd.Options) (*parts, error) {
	root, err := projectRoot()
	if err != nil {
		return nil, err
	}
	p := &parts{o: o, c: core.Options{Root: root, HewHome: a.hewHome(), HomeDir: a.homeDir()}}
	p.stateDir = session.ProjectDir(p.c.HewHome, root)
	p.settings, err = a.loadTrusted(root, o.TrustProject, !o.Print && term.ClassifyStdin(a.stdin) == term.StdinTerminal)
	if err != nil {
		return nil, usageErr(err)
	}
	p.c.Notices = p.settings.Notices()
	p.c.Mode, _ = o.Perms.Modes.Pick()
	if p.c.Mode == "" {
		if p.c.Mode, err = permission.ParseMode(p.settings.Permissions.DefaultMode); err != nil {
			return nil, usagef("permissions.defaultMode in settings: %v", err)
		}
	}
	return p, nil
}

// buildTools makes the tool side: environment, permissions, hooks, shell
// runner (sandboxed when possible), built-in tools, skills, sub-agent roles
// and the (unstarted) MCP servers.
func (a *cli) buildTools(p *parts) error {
	c := &p.c
	eng, sb, err := a.brakes(c.Root, p.settings, p.o.Perms, p.o.NoSandbox)
	if err != nil {
		return usageErr(err)
	}
	c.Permissions = eng
	c.Confinement, c.Sandbox = sb, sb.Describe()
	c.Env = &tools.Env{
		Root:           c.Root,
		HomeDir:        c.HomeDir,
		StateDir:       p.stateDir,
		Env:            pick.WithoutCredentials(a.environ),
		Reads:          tools.NewReadTracker(),
		AdditionalDirs: eng.AdditionalDirs(),
		AllowOutside:   eng.AllowsOutside,
		DeniedRead:     eng.DeniesRead,
	}
	c.Hooks = hooks.New(p.settings.Hooks, c.Root, a.environ)
	var reaped string
	if c.Env.Shell, reaped = sb.ProjectShell(p.stateDir); reaped != "" {
		c.Notices = append(c.Notices, reaped)
	}
	if w := sb.StartupWarning(); w != "" {
		c.Notices = append(c.Notices, w)
	}
	c.Registry = tools.NewRegistry()
	tools.RegisterBuiltins(c.Registry)
	cat := skills.Scan(skills.Roots{Project: c.Root, Home: c.HomeDir, HewHome: c.HewHome})
	c.Skills = cat.Skills
	for _, pr := range cat.Problems {
		c.Notices = append(c.Notices, pr.String()) // reported once, before the first turn
	}
	if len(c.Skills) > 0 {
		// Without a session (hew mcp serve) fork skills are refused; the
		// session registers its own skill tool that runs them.
		c.Registry.Register(skilltool.New(c.Skills, nil, c.Registry))
	}
	var roleProblems []string
	c.Roles, roleProblems = subagent.LoadRoles(filepath.Join(c.HewHome, "agents"), filepath.Join(c.Root, ".hew", "agents"))
	c.Notices = append(c.Notices, roleProblems...)
	c.MCP = mcp.NewManager(mcp.LoadConfig(mcp.ConfigOptions{
		Root:      c.Root,
		Settings:  mcp.FromSettings(p.settings.MCPServers, c.HewHome),
		NoMCPJSON: true, // config read it, subject to the project's trust
		Files:     p.o.MCPConfig,
		LookupEnv: a.lookup,
	}), mcp.Options{Env: a.environ, Stderr: fsutil.NewLazyFile(filepath.Join(p.stateDir, "mcp.log")), ClientName: "hew", ClientVersion: Version})
	return nil
}

// resumePath is the session file -c/--resume names ("" for a new session);
// a bare --resume asks for a choice only when stdin is a terminal.
func (a *cli) resumePath(p *parts) (string, error) {
	pick := p.o.ResumeSet && p.o.Resume == rootcmd.ResumePick
	r := session.Resume{Latest: p.o.Continue, Pick: pick, ByID: p.o.ResumeSet && !pick, ID: p.o.Resume}
	var choose func([]session.Info) (string, bool)
	if r.Pick && term.ClassifyStdin(a.stdin) == term.StdinTerminal {
		choose = func(list []session.Info) (string, bool) { return repl.PickSession(a.stdin, a.stderr, list, time.Now) }
	}
	path, err := r.Path(p.c.HewHome, p.c.Root, choose)
	if errors.Is(err, session.ErrNoSession) {
		return "", usageErr(err)
	}
	return path, err
}

// closeSession releases the session, reporting a session file that could
// not be written.
func (a *cli) closeSession(s *core.Session) {
	if err := s.Close(); err != nil {
		fmt.Fprintf(a.stderr, "hew: %v\n", err)
	}
}
