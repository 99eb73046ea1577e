package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/compact"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/mcp"
	"github.com/hew-dev/hew/internal/memory"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/plan"
	"github.com/hew-dev/hew/internal/prompt"
	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/skills"
	"github.com/hew-dev/hew/internal/subagent"
	"github.com/hew-dev/hew/internal/tools"
	"github.com/hew-dev/hew/internal/wakeup"
)

// hewRuntime is one session's assembled parts. build makes the cheap ones;
// prepare connects MCP servers and builds the prompt and the agent right
// before the first model request.
type hewRuntime struct {
	cli      *cli
	o        *options
	root     string // project root: the working directory hew started in
	home     string // $HEW_HOME
	homeDir  string
	stateDir string // $HEW_HOME/projects/KEY

	settings *config.Settings
	prov     choice
	provider llm.Provider
	mode     permission.Mode
	perms    agent.PermissionChecker
	hooks    agent.HookRunner
	registry *tools.Registry
	env      *tools.Env
	mcp      *mcp.Manager
	skills   []skills.Skill
	plans    *plan.Set
	subagent *subagent.Tool
	wakeup   *wakeup.Tool
	ctxMgr   *compact.Manager
	rec      *recorder
	resumed  *session.Loaded

	// notices are one-line warnings gathered while building (sandbox off,
	// settings warnings), shown by the front-end before the first turn.
	notices []string
	// sandboxLine describes run_shell's confinement for the prompt.
	sandboxLine string

	// ask answers approval requests in interactive runs; nil denies.
	ask agent.Approver

	agentMu     sync.Mutex // guards agent, mode, provider and prov.Model
	prepareOnce sync.Once
	prepareErr  error
	agent       *agent.Agent
	prompt      prompt.Prompt
	firstTurn   bool            // the next user message carries the reminder
	toldMode    permission.Mode // the permission mode the model was last told
	goal        string          // --goal, applied to the first message

	sinkMu sync.Mutex
	sink   func(agent.Event)
	todos  []tools.Todo
}

// todoText renders the current todo list ("" when there is none).
func (rt *hewRuntime) todoText() string {
	rt.sinkMu.Lock()
	defer rt.sinkMu.Unlock()
	var b strings.Builder
	for _, t := range rt.todos {
		fmt.Fprintf(&b, "- [%s] %s\n", t.Status, t.Content)
	}
	return b.String()
}

// clearTodos forgets the todo list (/clear).
func (rt *hewRuntime) clearTodos() {
	rt.sinkMu.Lock()
	rt.todos = nil
	rt.sinkMu.Unlock()
}

// build assembles a runtime for o. Errors are usage errors (exit 2) when
// the user can fix them in flags, environment or settings.
func (a *cli) build(o *options) (*hewRuntime, error) {
	rt, err := a.loadSettings(o)
	if err != nil {
		return nil, err
	}
	rt.prov, err = chooseProvider(o, a.env, rt.settings.Provider, rt.settings.Model)
	if err != nil {
		return nil, usageErr(err)
	}
	rt.provider, err = a.newProvider(rt.prov)
	if err != nil {
		return nil, usageErr(err)
	}
	if err := rt.buildTools(); err != nil {
		return nil, err
	}
	if err := rt.openSession(); err != nil {
		return nil, err
	}
	rt.env.SessionID = rt.rec.ID()
	rt.ctxMgr = compact.New(compact.Options{
		Provider:     rt.provider, // Model left empty: summaries use the request's model (/model switches)
		Window:       rt.settings.ContextWindow,
		Threshold:    rt.settings.CompactThreshold,
		Auto:         rt.settings.AutoCompact,
		Emit:         rt.emit,
		Instructions: func() string { return rt.prompt.Reminder },
		Todos:        rt.todoText,
		Env:          rt.env,
		Record:       rt.rec.Record,
	})
	return rt, nil
}

// loadSettings starts a runtime: where it runs, its settings and mode.
func (a *cli) loadSettings(o *options) (*hewRuntime, error) {
	root, err := projectRoot()
	if err != nil {
		return nil, err
	}
	rt := &hewRuntime{cli: a, o: o, root: root, home: a.hewHome(), homeDir: a.homeDir(), firstTurn: true, goal: o.goal}
	rt.stateDir = session.ProjectDir(rt.home, root)
	rt.settings, err = config.Load(config.Paths{Home: rt.home, Project: root})
	if err != nil {
		return nil, usageErr(err)
	}
	rt.notices = append(rt.notices, rt.settings.Warnings...)
	rt.mode, _ = o.mode()
	if rt.mode == "" {
		if rt.mode, err = parseMode(rt.settings.Permissions.DefaultMode); err != nil {
			return nil, usagef("permissions.defaultMode in settings: %v", err)
		}
	}
	return rt, nil
}

// buildTools makes the tool side: environment, permissions, hooks, shell
// runner, built-in tools, skills and the (unstarted) MCP servers.
func (rt *hewRuntime) buildTools() error {
	a := rt.cli
	rt.env = &tools.Env{
		Root:     rt.root,
		HomeDir:  rt.homeDir,
		StateDir: rt.stateDir,
		Env:      toolEnviron(a.environ),
		Reads:    tools.NewReadTracker(),
	}
	if err := rt.wireBrakes(); err != nil {
		return err
	}
	rt.registry = tools.NewRegistry()
	tools.RegisterBuiltins(rt.registry)
	rt.skills = skills.Discover(skills.Roots{Project: rt.root, Home: rt.homeDir, HewHome: rt.home})
	if len(rt.skills) > 0 {
		rt.registry.Register(skills.NewTool(rt.skills))
	}
	rt.subagent = subagent.New(subagent.Options{
		Base:     rt.agentConfig,
		Registry: rt.registry,
		Used: func() (llm.Usage, float64) {
			rt.agentMu.Lock()
			ag := rt.agent
			rt.agentMu.Unlock()
			if ag == nil {
				return llm.Usage{}, 0
			}
			return ag.Usage()
		},
		AddUsage: func(u llm.Usage, _ float64) {
			rt.agentMu.Lock()
			ag, model := rt.agent, rt.prov.Model
			rt.agentMu.Unlock()
			if ag != nil {
				ag.AddUsage(model, u)
			}
		},
		WrapPrompt: func(p string) string { return prompt.WithReminder(rt.prompt.Reminder, p) },
	})
	rt.registry.Register(rt.subagent)
	rt.plans = plan.NewTools(plan.Options{
		Mode:     rt.currentMode,
		SetMode:  rt.setMode,
		PlansDir: filepath.Join(rt.home, "plans"),
		Registry: rt.registry,
	})
	for _, t := range rt.plans.Tools() {
		rt.registry.Register(t)
	}
	rt.wakeup = &wakeup.Tool{} // deferred: visible once a dynamic /loop starts
	rt.registry.Register(rt.wakeup)
	sources, errs := mcp.SettingsSources(rt.home, rt.root)
	for _, err := range errs {
		rt.notices = append(rt.notices, err.Error())
	}
	rt.mcp = mcp.NewManager(mcp.LoadConfig(mcp.ConfigOptions{
		Root:      rt.root,
		Settings:  sources,
		Files:     rt.o.mcpConfig,
		LookupEnv: a.env.lookup,
	}), mcp.Options{Env: a.environ, Stderr: rt.mcpLog(), ClientName: "hew", ClientVersion: Version})
	return nil
}

// credentialVars are hew's own model credentials. Commands the model runs
// do not inherit them, so a prompt injection cannot send the key elsewhere.
var credentialVars = map[string]bool{
	"ANTHROPIC_API_KEY": true, "ANTHROPIC_AUTH_TOKEN": true, "OPENAI_API_KEY": true, "AGENT_API_KEY": true,
}

// toolEnviron is the environment of the model's shell commands.
func toolEnviron(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); !credentialVars[k] {
			out = append(out, kv)
		}
	}
	return out
}

// mcpLog is where MCP servers' stderr goes: a log file under the project
// state directory, opened on first write, so servers never scribble over
// the terminal.
func (rt *hewRuntime) mcpLog() io.Writer {
	return &lazyFile{path: filepath.Join(rt.stateDir, "mcp.log")}
}

// openSession starts a new session or reopens the one -c/--resume names.
func (rt *hewRuntime) openSession() error {
	dir := session.Dir(rt.home, rt.root)
	var path string
	switch {
	case rt.o.cont:
		p, err := session.Latest(dir)
		if err != nil {
			return err
		}
		if p == "" {
			return usagef("no session to continue in %s (sessions are kept per working directory)", rt.root)
		}
		path = p
	case rt.o.resumeSet && rt.o.resume != resumePick:
		p, err := session.Find(rt.home, rt.o.resume)
		if err != nil {
			return usageErr(err)
		}
		path = p
	case rt.o.resumeSet:
		p, err := rt.pickSession(dir)
		if err != nil {
			return err
		}
		path = p
	}
	if path == "" {
		rt.rec = newRecorder(dir, session.Meta{ID: session.NewID(), Cwd: rt.root, Model: rt.prov.Model, Provider: rt.prov.Name, Version: Version})
		return nil
	}
	loaded, err := session.Load(path)
	if err != nil {
		return err
	}
	w, err := session.Append(path)
	if err != nil {
		return err
	}
	rt.resumed = loaded
	rt.rec = openedRecorder(w)
	rt.firstTurn = false // the reminder is already in the resumed history
	if loaded.Skipped > 0 || loaded.Repaired > 0 {
		rt.notices = append(rt.notices, fmt.Sprintf("resumed session %s: %d unreadable line(s) skipped, %d interrupted tool call(s) closed", loaded.Meta.ID, loaded.Skipped, loaded.Repaired))
	}
	return nil
}

// pickSession resolves a bare --resume: the only session of this directory,
// or a numbered choice when stdin is a terminal.
func (rt *hewRuntime) pickSession(dir string) (string, error) {
	list, err := session.List(dir)
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", usagef("no sessions in %s", rt.root)
	}
	if len(list) == 1 {
		return list[0].Path, nil
	}
	if classifyStdin(rt.cli.stdin) != stdinTerminal {
		var b strings.Builder
		for _, s := range list {
			fmt.Fprintf(&b, "\n  %s  %s  %s", s.ID, s.Modified.Local().Format("2006-01-02 15:04"), s.Title)
		}
		return "", usagef("--resume needs a session id here; sessions of this directory:%s", b.String())
	}
	for i, s := range list {
		fmt.Fprintf(rt.cli.stderr, "%2d) %s  %s  %s\n", i+1, s.ID, s.Modified.Local().Format("2006-01-02 15:04"), s.Title)
	}
	fmt.Fprint(rt.cli.stderr, "resume which session? ")
	var n int
	if _, err := fmt.Fscan(rt.cli.stdin, &n); err != nil || n < 1 || n > len(list) {
		return "", usagef("no session picked")
	}
	return list[n-1].Path, nil
}

// subscribe sets the front-end's event handler.
func (rt *hewRuntime) subscribe(f func(agent.Event)) {
	rt.sinkMu.Lock()
	rt.sink = f
	rt.sinkMu.Unlock()
}

// emit forwards an event to the front-end, keeping the latest todo list
// for compaction to carry over.
func (rt *hewRuntime) emit(e agent.Event) {
	rt.sinkMu.Lock()
	if tf, ok := e.(agent.ToolFinished); ok && tf.Todos != nil {
		rt.todos = tf.Todos
	}
	f := rt.sink
	rt.sinkMu.Unlock()
	if f != nil {
		f(e)
	}
}

// prepare connects the MCP servers, builds the system prompt and the agent.
// It runs once, right before the first model request.
func (rt *hewRuntime) prepare(ctx context.Context) error {
	rt.prepareOnce.Do(func() { rt.prepareErr = rt.doPrepare(ctx) })
	return rt.prepareErr
}

func (rt *hewRuntime) doPrepare(ctx context.Context) error {
	for _, err := range rt.mcp.Register(ctx, rt.registry) {
		rt.notices = append(rt.notices, err.Error())
	}
	rt.toldMode = rt.currentMode()
	rt.prompt = prompt.Build(prompt.Options{
		Root:            rt.root,
		HomeDir:         rt.homeDir,
		HewHome:         rt.home,
		GOOS:            runtime.GOOS,
		Shell:           rt.cli.env.get("SHELL"),
		Mode:            string(rt.toldMode),
		Model:           rt.currentModel(),
		Append:          rt.o.appendSystemPrompt,
		MCPInstructions: rt.mcp.Instructions(),
		SkillIndex:      skills.Index(rt.skills),
		Interactive:     rt.ask != nil,
		Sandbox:         rt.sandboxLine,
		Deferred:        deferredLines(rt.registry),
		Now:             time.Now(),
	})
	if mem := memory.Open(rt.stateDir).Context(); mem != "" {
		// Memory changes between sessions, so like the project instructions
		// it rides in the first message, never in the cached system prompt.
		rt.prompt.Reminder = strings.TrimSpace(rt.prompt.Reminder + "\n\n<system-reminder>\n" + strings.TrimSpace(mem) + "\n</system-reminder>")
	}
	rt.agentMu.Lock()
	defer rt.agentMu.Unlock()
	ag, err := agent.New(rt.agentConfigLocked())
	if err != nil {
		return err
	}
	if rt.resumed != nil && len(rt.resumed.Messages) > 0 {
		ag.SetHistory(rt.resumed.Messages)
	}
	rt.agent = ag
	return nil
}

// resumedClear forgets a resumed history not yet handed to the agent (/clear
// before the first message).
func (rt *hewRuntime) resumedClear() {
	rt.agentMu.Lock()
	defer rt.agentMu.Unlock()
	if rt.resumed != nil {
		rt.resumed.Messages = nil
	}
}

// flushNotices shows the warnings gathered while building and preparing
// (sandbox off, settings warnings, MCP servers that failed), once.
func (rt *hewRuntime) flushNotices() {
	notices := rt.notices
	rt.notices = nil
	for _, n := range notices {
		rt.emit(agent.Notice{Level: "warn", Text: n})
	}
}

// userPrompt adds the system reminder (project instructions, date) to the
// first message of a new session.
func (rt *hewRuntime) userPrompt(p string) string {
	if m := rt.currentMode(); m != rt.toldMode {
		// The mode changed since the model was last told (/mode, /plan):
		// say so in the message, leaving the cached system prompt alone.
		rt.toldMode = m
		p = prompt.WithReminder(prompt.ModeNote(string(m)), p)
	}
	if !rt.firstTurn {
		return p
	}
	rt.firstTurn = false
	return prompt.WithReminder(rt.prompt.Reminder, p)
}

// close releases what the runtime holds: MCP servers and the session file.
func (rt *hewRuntime) close() {
	if rt.mcp != nil {
		_ = rt.mcp.Close()
	}
	if rt.rec != nil {
		if err := rt.rec.Close(); err != nil {
			fmt.Fprintf(rt.cli.stderr, "hew: session file: %v\n", err)
		}
	}
}

// lazyFile is a writer that creates its file on the first write.
type lazyFile struct {
	mu   sync.Mutex
	path string
	f    *os.File
	err  error
}

func (l *lazyFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.err == nil {
		if l.err = os.MkdirAll(filepath.Dir(l.path), 0o700); l.err == nil {
			l.f, l.err = os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		}
	}
	if l.err != nil {
		return len(p), nil // a log that cannot be written must not break a server
	}
	return l.f.Write(p)
}

// agentConfig is the session's agent configuration as it is now (provider,
// model and mode included); sub-agents start from it.
func (rt *hewRuntime) agentConfig() agent.Config {
	rt.agentMu.Lock()
	defer rt.agentMu.Unlock()
	return rt.agentConfigLocked()
}

func (rt *hewRuntime) agentConfigLocked() agent.Config {
	return agent.Config{
		Provider:        rt.provider,
		Model:           rt.prov.Model,
		System:          rt.prompt.System,
		Tools:           rt.registry,
		Env:             rt.env,
		Permissions:     rt.perms,
		Mode:            rt.mode,
		Approver:        rt.approver(),
		Hooks:           rt.hooks,
		Recorder:        rt.rec,
		Emit:            rt.emit,
		Context:         rt.ctxMgr,
		MaxTurns:        rt.o.maxTurns,
		MaxBudgetTokens: rt.o.maxBudgetTokens,
		MaxCostUSD:      rt.o.maxCostUSD,
		ContextWindow:   rt.settings.ContextWindow,
		SessionID:       rt.rec.ID(),
	}
}

// setMode is the one place the session's permission mode changes (/mode,
// /plan, the plan tools); entering plan mode remembers where to return.
func (rt *hewRuntime) setMode(m permission.Mode) {
	rt.agentMu.Lock()
	prev := rt.mode
	rt.mode = m
	ag := rt.agent
	rt.agentMu.Unlock()
	if m == permission.ModePlan && prev != permission.ModePlan && rt.plans != nil {
		rt.plans.Remember(prev)
	}
	if ag != nil {
		ag.SetMode(m)
	}
}

func (rt *hewRuntime) currentMode() permission.Mode {
	rt.agentMu.Lock()
	defer rt.agentMu.Unlock()
	return rt.mode
}

func (rt *hewRuntime) currentModel() string {
	rt.agentMu.Lock()
	defer rt.agentMu.Unlock()
	return rt.prov.Model
}
