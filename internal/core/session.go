// Package core is hew's session: one live conversation and everything that
// belongs to it (the agent, the transcript file, mode, model, goal, loop,
// todos and the context manager). Its methods are the one contract every
// front-end drives — the REPL, headless runs and `hew mcp serve` — and
// everything it has to say arrives as the agent's ordered events. Like the
// agent, it never touches stdin, stdout or the process environment: the
// wiring (internal/app) hands it values.
package core

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/checkpoint"
	"github.com/hew-dev/hew/internal/compact"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/mcp"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/plan"
	"github.com/hew-dev/hew/internal/prompt"
	"github.com/hew-dev/hew/internal/sandbox"
	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/skills"
	"github.com/hew-dev/hew/internal/subagent"
	"github.com/hew-dev/hew/internal/tools"
	agenttool "github.com/hew-dev/hew/internal/tools/agent"
	mcptool "github.com/hew-dev/hew/internal/tools/mcp"
	plantool "github.com/hew-dev/hew/internal/tools/plan"
	skilltool "github.com/hew-dev/hew/internal/tools/skill"
	wakeuptool "github.com/hew-dev/hew/internal/tools/wakeup"
	"github.com/hew-dev/hew/internal/wakeup"
)

// Options are the parts a session is assembled from. The wiring builds
// them (settings, provider, permission engine, hooks, shell runner, tool
// registry with the built-in and skill tools, unstarted MCP servers); the
// session adds the tools bound to it (agent, plan mode, schedule_wakeup).
type Options struct {
	// Root is the project root (the working directory hew started in);
	// HewHome is $HEW_HOME; HomeDir the user's home directory.
	Root, HewHome, HomeDir string

	// Provider continues the conversation with Model; ProviderName names it
	// for status lines and the session file. NewProvider builds a provider
	// for another model (SetModel); nil makes SetModel fail.
	Provider     llm.Provider
	ProviderName string
	Model        string
	NewProvider  func(model string) (llm.Provider, error)

	Mode        permission.Mode
	Permissions agent.PermissionChecker
	Hooks       agent.HookRunner
	Registry    *tools.Registry
	Env         *tools.Env
	MCP         *mcp.Manager // may be nil: no MCP servers
	Skills      []skills.Skill
	// Roles are user-defined sub-agent roles (.hew/agents, $HEW_HOME/agents).
	Roles map[string]subagent.Role

	// Approver answers approval questions (the terminal's); nil means
	// nobody can be asked and what would ask is denied with Hint.
	Approver agent.Approver
	Hint     string
	// DecidePlan asks the user what to do with a plan finished in plan mode
	// (the terminal's menu); nil means nobody can: the plan is saved and
	// printed and the turn ends (headless).
	DecidePlan plan.Decider
	// Emit receives every event in order, synchronously; nil drops them.
	Emit func(agent.Event)

	// Limits of the run (flags); zero means none (MaxTurns: the agent's default).
	MaxTurns        int
	MaxBudgetTokens int
	MaxCostUSD      float64
	// Context window and compaction settings.
	ContextWindow    int
	CompactThreshold float64
	AutoCompact      bool

	// AppendSystemPrompt is --append-system-prompt; Shell is $SHELL, for
	// the environment block of the prompt; GOOS the platform.
	AppendSystemPrompt string
	// SystemPrompt is --system-prompt: it replaces hew's prompt core.
	SystemPrompt string
	Shell, GOOS  string
	// Goal is --goal: the first message works until it is judged met.
	Goal string
	// GoalBudget bounds each goal (settings "goal"); LoopBudget each /loop
	// (settings "loop").
	GoalBudget GoalBudget
	LoopBudget LoopBudget
	// ResumePath, if set, is the session file to continue.
	ResumePath string
	// Version is hew's version, written to new session files.
	Version string
	// Sandbox says in one line how run_shell is confined, for the
	// environment block of the prompt.
	Sandbox string
	// Trust says in one line whether the project's settings that run code
	// or widen permissions apply (config.Trust.Summary), for /status.
	Trust string
	// Confinement is the session's sandbox: the session answers its
	// questions about domains and shows its notices, reports it in /status
	// and stops its network proxy on Close; nil when there is none.
	Confinement *sandbox.Sandbox
	// Notices are warnings gathered while building (sandbox off, settings),
	// shown once: in the banner (TakeNotices) or before the first turn.
	Notices []string
	// Now is the clock of the prompt's date line; nil means time.Now.
	Now func() time.Time
	// Checkpoints is the project's checkpoint store (/undo, /rewind); nil
	// takes no checkpoints.
	Checkpoints *checkpoint.Store
	// MemoryFailureCapture turns on the built-in PostToolUseFailure capture;
	// MemorySemanticRecall the semantic recall side query (settings).
	MemoryFailureCapture, MemorySemanticRecall bool
	// Edit opens a file in the user's editor and waits (/memory open); nil
	// means no editor is available.
	Edit func(path string) error
}

// Session is one live conversation. Submit, Goal, LoopRound, RunSkill and
// Compact run one at a time (the agent serialises turns); the other
// methods may be called at any time, from any goroutine.
type Session struct {
	o        Options
	stateDir string // $HEW_HOME/projects/KEY
	agent    *agent.Agent
	rec      *recorder
	ctxMgr   *compact.Manager
	plans    *plantool.Set
	wakeup   *wakeup.Schedule
	memory   *memoryParts
	subagent *subagent.Runner
	grants   *skillGrants        // inline user skills' allowed-tools, for one turn
	ckpt     *checkpoint.Tracker // nil: no checkpoints

	prepareOnce sync.Once
	prepareErr  error
	prompt      prompt.Prompt // set once by prepare, before the first request

	mu        sync.Mutex // guards the fields below
	model     string
	mode      permission.Mode
	provider  llm.Provider
	firstTurn bool            // the next user message carries the reminder
	toldMode  permission.Mode // the permission mode the model was last told
	goal      string          // --goal, applied to the first message
	todos     []tools.Todo
	notices   []string
	resumed   int // messages of the session resumed at start
	// hookContext is what SessionStart hooks added, for the next message.
	hookContext string
	cancel      context.CancelFunc
	// pendingPlan is a plan the user chose to carry out in a fresh
	// context; Submit runs it once the turn that approved it has ended.
	pendingPlan   string
	goalRun       *goalRun // the goal being worked on, if any
	restoreTo     string   // the model to switch back to after a skill's turn
	loop          *loopRun // the /loop running, if any
	loopStartCost float64
}

// New assembles a session: a new one, or the one at o.ResumePath. Nothing
// is connected and no request is made; MCP servers connect and the system
// prompt is built right before the first request.
func New(o Options) (*Session, error) {
	if o.Provider == nil {
		return nil, errors.New("session: no model provider configured")
	}
	if o.Registry == nil {
		o.Registry = tools.NewRegistry()
	}
	if o.Env == nil {
		o.Env = &tools.Env{Root: o.Root}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Session{
		o: o, stateDir: session.ProjectDir(o.HewHome, o.Root),
		model: o.Model, mode: o.Mode, provider: o.Provider,
		firstTurn: true, goal: o.Goal, notices: o.Notices,
	}
	if s.mode == "" {
		s.mode = permission.ModeDefault
	}
	s.grants = &skillGrants{next: o.Permissions}
	history, err := s.openTranscript()
	if err != nil {
		return nil, err
	}
	o.Env.SessionID = s.rec.ID()
	if o.Checkpoints != nil {
		s.ckpt = o.Checkpoints.TrackerFunc(s.ID)
	}
	if o.Confinement != nil {
		o.Confinement.SetFront(s.askDomain, s.sandboxNotice)
	}
	s.registerTools()
	s.ctxMgr = compact.New(compact.Options{
		Provider:      llm.Metered{Provider: o.Provider, OnUsage: s.countSide}, // Model left empty: summaries use the request's model (SetModel switches)
		Window:        o.ContextWindow,
		Threshold:     o.CompactThreshold,
		Auto:          o.AutoCompact,
		Emit:          s.emit,
		Instructions:  func() string { return s.prompt.Reminder },
		BeforeCompact: s.preCompact,
		AfterCompact:  func(ctx context.Context) { s.sessionStart(ctx, "compact") },
		Todos:         s.todoText,
		Tools:         o.Registry.Get,
		Env:           o.Env,
		Record:        s.rec.Record,
	})
	if s.agent, err = agent.New(s.agentConfig()); err != nil {
		return nil, err
	}
	if len(history) > 0 {
		s.agent.SetHistory(history)
	}
	s.resumed = len(history)
	return s, nil
}

// openTranscript starts the session file of a new session (created with its
// first record, so a session left without a word leaves no file) or opens
// the resumed one for appending and returns its history.
func (s *Session) openTranscript() ([]llm.Message, error) {
	if s.o.ResumePath == "" {
		s.rec = newRecorder(session.Dir(s.o.HewHome, s.o.Root), s.newMeta())
		return nil, nil
	}
	loaded, err := session.Load(s.o.ResumePath)
	if err != nil {
		return nil, err
	}
	w, err := session.Append(s.o.ResumePath)
	if err != nil {
		return nil, err
	}
	s.rec = openedRecorder(session.Dir(s.o.HewHome, s.o.Root), w)
	s.firstTurn = false // the reminder is already in the resumed history
	if loaded.Skipped > 0 || loaded.Repaired > 0 {
		s.notices = append(s.notices, fmt.Sprintf("resumed session %s: %d unreadable line(s) skipped, %d interrupted tool call(s) closed", loaded.Meta.ID, loaded.Skipped, loaded.Repaired))
	}
	return loaded.Messages, nil
}

func (s *Session) newMeta() session.Meta {
	return session.Meta{ID: session.NewID(), Cwd: s.o.Root, Model: s.o.Model, Provider: s.o.ProviderName, Version: s.o.Version}
}

// registerTools adds the tools bound to this session: the sub-agent (it
// starts from the session's configuration), plan mode (it changes the
// session's mode) and schedule_wakeup (deferred until a dynamic loop).
func (s *Session) registerTools() {
	reg := s.o.Registry
	s.subagent = subagent.New(subagent.Options{
		Base:      s.agentConfig,
		Registry:  reg,
		Roles:     s.o.Roles,
		History:   s.History,
		Sidechain: s.sidechain,
		Used: func() (llm.Usage, float64) {
			if s.agent == nil {
				return llm.Usage{}, 0
			}
			return s.agent.Usage()
		},
		AddUsage: func(u llm.Usage, _ float64) {
			if s.agent != nil {
				s.agent.AddUsage(s.Model(), u)
			}
		},
		WrapPrompt: func(p string) string { return prompt.WithReminder(s.prompt.Reminder, p) },
	})
	reg.Register(agenttool.New(s.subagent))
	if len(s.o.Skills) > 0 {
		reg.Register(skilltool.New(s.o.Skills, s.forkSkill, reg)) // runs context: fork skills
	}
	s.plans = plantool.NewTools(plantool.Options{
		Mode:        s.Mode,
		SetMode:     s.SetMode,
		PlansDir:    filepath.Join(s.o.HewHome, "plans"),
		Registry:    reg,
		Decide:      s.o.DecidePlan,
		ClearAndRun: s.queuePlan,
	})
	for _, t := range s.plans.Tools() {
		reg.Register(t)
	}
	s.wakeup = &wakeup.Schedule{}
	reg.Register(wakeuptool.New(s.wakeup))
	s.newMemory()
}

// countSide adds a side request's usage (compaction summary, goal
// evaluator) to the session's totals, so budgets and /cost include it.
func (s *Session) countSide(model string, u llm.Usage) {
	if s.agent != nil {
		s.agent.AddUsage(model, u)
	}
}

// agentConfig is the agent configuration as it is now (provider, model,
// mode and prompt included); sub-agents start from it.
func (s *Session) agentConfig() agent.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	ap := s.o.Approver
	if ap == nil {
		ap = agent.Headless{Hint: s.o.Hint}
	}
	return agent.Config{
		Provider:        s.provider,
		Model:           s.model,
		System:          s.prompt.System,
		Tools:           s.o.Registry,
		Env:             s.o.Env,
		Permissions:     s.grants,
		Mode:            s.mode,
		Approver:        ap,
		Hooks:           s.hooks(),
		Recorder:        s.rec,
		Emit:            s.emit,
		Context:         s.contextManager(),
		Checkpoints:     s.checkpointer(),
		MaxTurns:        s.o.MaxTurns,
		MaxBudgetTokens: s.o.MaxBudgetTokens,
		MaxCostUSD:      s.o.MaxCostUSD,
		ContextWindow:   s.o.ContextWindow,
		SessionID:       s.rec.ID(),
	}
}

// checkpointer is the tracker as the agent takes it (a nil interface when
// there is none).
func (s *Session) checkpointer() agent.Checkpointer {
	if s.ckpt == nil {
		return nil
	}
	return s.ckpt
}

// emit forwards an event to the front-end, keeping the latest todo list
// for compaction to carry over.
func (s *Session) emit(e agent.Event) {
	if c, ok := e.(agent.Compacted); ok && c.Tier == 4 && s.memory != nil {
		s.memory.recall.Unsee() // the summary dropped the recalled memories
	}
	if tf, ok := e.(agent.ToolFinished); ok && tf.Todos != nil {
		s.mu.Lock()
		s.todos = tf.Todos
		s.mu.Unlock()
	}
	if s.o.Emit != nil {
		s.o.Emit(e)
	}
}

// todoText renders the current todo list ("" when there is none).
func (s *Session) todoText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, t := range s.todos {
		fmt.Fprintf(&b, "- [%s] %s\n", t.Status, t.Content)
	}
	return b.String()
}

// Prepare connects the MCP servers and builds the system prompt. It runs
// once; Submit calls it, and a front-end may call it first to announce the
// session's tools before the first request.
func (s *Session) Prepare(ctx context.Context) error {
	s.prepareOnce.Do(func() { s.prepareErr = s.prepare(ctx) })
	return s.prepareErr
}

func (s *Session) prepare(ctx context.Context) error {
	var instructions string
	if s.o.MCP != nil {
		for _, err := range mcptool.Register(ctx, s.o.MCP, s.o.Registry) {
			s.addNotice(err.Error())
		}
		instructions = s.o.MCP.Instructions()
	}
	s.mu.Lock()
	s.toldMode = s.mode
	s.mu.Unlock()
	p := prompt.Build(prompt.Options{
		Root:            s.o.Root,
		HomeDir:         s.o.HomeDir,
		HewHome:         s.o.HewHome,
		GOOS:            s.o.GOOS,
		Shell:           s.o.Shell,
		Mode:            string(s.Mode()),
		Model:           s.Model(),
		Append:          s.o.AppendSystemPrompt,
		Replace:         s.o.SystemPrompt,
		Trust:           s.o.Trust,
		MCPInstructions: instructions,
		SkillIndex:      skills.Index(s.o.Skills),
		Interactive:     s.o.Approver != nil,
		Sandbox:         s.o.Sandbox,
		Deferred:        deferredLines(s.o.Registry),
		Memory:          s.memoryLine(),
		Now:             s.o.Now(),
	})
	s.mu.Lock()
	s.prompt = p
	source := "startup"
	if s.resumed > 0 {
		source = "resume"
	}
	s.mu.Unlock()
	s.agent.SetSystem(p.System)
	s.sessionStart(ctx, source)
	return nil
}

func (s *Session) addNotice(n string) {
	s.mu.Lock()
	s.notices = append(s.notices, n)
	s.mu.Unlock()
}

// TakeNotices returns the warnings gathered so far and forgets them, for a
// front-end that shows them itself (the REPL's banner).
func (s *Session) TakeNotices() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notices
	s.notices = nil
	return n
}

// flushNotices emits the warnings not shown yet, once.
func (s *Session) flushNotices() {
	for _, n := range s.TakeNotices() {
		s.emit(agent.Notice{Level: "warn", Text: n})
	}
}

// userPrompt adds the system reminder (project instructions, memory, date)
// to the first message of a conversation, and a note when the permission
// mode changed since the model was last told (/mode, /plan), leaving the
// cached system prompt alone.
func (s *Session) userPrompt(p string) string {
	// Memories matching the message ride with it (and the semantic side
	// query starts now, in parallel with the first request): the system
	// prompt and earlier messages stay as they were, so the cached prefix
	// holds.
	p = prompt.WithReminder(s.memory.recall.Submit(context.Background(), p), p)
	s.mu.Lock()
	first := s.firstTurn
	s.firstTurn = false
	if s.mode != s.toldMode {
		s.toldMode = s.mode
		p = prompt.WithReminder(prompt.ModeNote(string(s.mode)), p)
	}
	s.mu.Unlock()
	p = s.withHookContext(p)
	if !first {
		return p
	}
	return prompt.WithReminder(s.prompt.Reminder, p)
}

// deferredLines lists the registry's deferred tools with the first line of
// each description, for the environment block.
func deferredLines(r *tools.Registry) []prompt.ToolLine {
	var out []prompt.ToolLine
	for _, t := range r.Deferred() {
		line, _, _ := strings.Cut(strings.TrimSpace(t.Description()), "\n")
		if len(line) > 160 {
			line = line[:157] + "..."
		}
		out = append(out, prompt.ToolLine{Name: t.Name(), Line: line})
	}
	return out
}
