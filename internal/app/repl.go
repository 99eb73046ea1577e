package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/memory"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/render"
	"github.com/hew-dev/hew/internal/ui/repl"
	"github.com/hew-dev/hew/internal/wakeup"
)

// streams describes the standard streams for the terminal front-ends.
func (a *cli) streams() *term.Streams {
	env := term.EnvFromList(a.environ)
	in, ok1 := a.stdin.(*os.File)
	out, ok2 := a.stdout.(*os.File)
	errw, ok3 := a.stderr.(*os.File)
	if ok1 && ok2 && ok3 {
		return term.FromFiles(in, out, errw, env)
	}
	s, _, _, _ := term.Test()
	s.In, s.Out, s.Err = a.stdin, a.stdout, a.stderr
	return s
}

// terminalFrontEnd makes the renderer and approver of an interactive run
// and subscribes them to the runtime.
func (a *cli) terminalFrontEnd(rt *hewRuntime) (*term.Streams, *render.Renderer, *repl.Approver) {
	s := a.streams()
	bell := time.Duration(0) // the renderer's default
	if !rt.settings.Bell {
		bell = -1 // "bell": false in settings
	}
	r := render.New(s, render.Options{Verbose: rt.o.verbose, BellAfter: bell})
	ap := repl.NewApprover(s, r)
	rt.ask = ap
	rt.subscribe(r.Emit)
	return s, r, ap
}

// runREPL starts the interactive session.
func (a *cli) runREPL(o *options) int {
	rt, err := a.build(o)
	if err != nil {
		return a.fail(err)
	}
	defer rt.close()
	s, r, ap := a.terminalFrontEnd(rt)

	// Ctrl+C belongs to the REPL (it stops a turn); SIGTERM ends the session.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	defer signal.Stop(term)
	go func() {
		select {
		case <-term:
			cancel()
		case <-ctx.Done():
		}
	}()

	banner := fmt.Sprintf("%s · %s %s · %s", versionString(), rt.prov.Name, rt.prov.Model, rt.root)
	if rt.resumed != nil {
		banner += fmt.Sprintf("\nresumed session %s (%d messages)", rt.rec.ID(), len(rt.resumed.Messages))
	}
	for _, n := range rt.notices { // build-time warnings (sandbox, settings) show at once
		banner += "\nwarning: " + n
	}
	rt.notices = nil
	la := &lazyAgent{rt: rt}
	return repl.Run(ctx, repl.Options{
		Streams:     s,
		Agent:       la,
		Renderer:    r,
		Approver:    ap,
		Model:       rt.prov.Model,
		Provider:    rt.prov.Name,
		HistoryFile: filepath.Join(rt.home, "history"),
		NewProvider: func(model string) (llm.Provider, error) {
			c := rt.prov
			c.Model = model
			return a.newProvider(c)
		},
		Session: func() repl.SessionInfo {
			st := rt.ctxMgr.Stats()
			rate := -1.0
			if st.Requests > 0 {
				rate = st.HitRate
			}
			info := repl.SessionInfo{ID: rt.rec.ID(), ContextTokens: st.ContextTokens, ContextWindow: st.Window, CacheHitRate: rate}
			for _, m := range rt.mcp.Status() {
				line := fmt.Sprintf("%s: %s, %d tools", m.Name, m.State, m.Tools)
				if m.Error != "" {
					line += " — " + m.Error
				}
				info.MCP = append(info.MCP, line)
			}
			return info
		},
		ListSessions: func() ([]repl.SessionSummary, error) {
			list, err := session.List(session.Dir(rt.home, rt.root))
			out := make([]repl.SessionSummary, 0, len(list))
			for _, s := range list {
				out = append(out, repl.SessionSummary{ID: s.ID, Updated: s.Modified, Title: s.Title, Messages: s.Messages})
			}
			return out, err
		},
		Resume: func(id string) error { return la.resume(ctx, id) },
		Extras: rt.replExtras(),
		Banner: banner,
	})
}

// runInteractiveOnce runs one task with the terminal front-end: streamed
// text, tool lines, and questions asked on the terminal.
func (a *cli) runInteractiveOnce(ctx context.Context, rt *hewRuntime, text string) int {
	_, r, _ := a.terminalFrontEnd(rt)
	res := rt.turn(ctx, text, nil)
	r.Close()
	if res.StopReason != agent.StopCompleted && res.StopReason != agent.StopGoalMet {
		msg := "stopped: " + string(res.StopReason)
		if res.Err != "" {
			msg += ": " + res.Err
		}
		fmt.Fprintln(a.stderr, "hew: "+msg)
	}
	return exitCode(res)
}

// lazyAgent is the REPL's view of the agent. The agent itself is built on
// the first message (that is when MCP servers connect and the prompt is
// assembled), so the prompt appears at once; until then settings are kept.
type lazyAgent struct{ rt *hewRuntime }

var _ repl.Agent = (*lazyAgent)(nil)

func (l *lazyAgent) get() *agent.Agent {
	l.rt.agentMu.Lock()
	defer l.rt.agentMu.Unlock()
	return l.rt.agent
}

func (l *lazyAgent) Run(ctx context.Context, prompt string) agent.TurnResult {
	return l.rt.turn(ctx, prompt, nil)
}

func (l *lazyAgent) History() []llm.Message {
	if ag := l.get(); ag != nil {
		return ag.History()
	}
	if l.rt.resumed != nil {
		return l.rt.resumed.Messages
	}
	return nil
}

func (l *lazyAgent) SetModel(p llm.Provider, model string) {
	l.rt.agentMu.Lock()
	l.rt.provider, l.rt.prov.Model = p, model
	ag := l.rt.agent
	l.rt.agentMu.Unlock()
	if ag != nil {
		ag.SetModel(p, model)
	}
}

func (l *lazyAgent) SetMode(m permission.Mode) { l.rt.setMode(m) }

func (l *lazyAgent) Mode() permission.Mode {
	if ag := l.get(); ag != nil {
		return ag.Mode()
	}
	l.rt.agentMu.Lock()
	defer l.rt.agentMu.Unlock()
	return l.rt.mode
}

func (l *lazyAgent) Compact(ctx context.Context, focus string) error {
	if err := l.rt.prepare(ctx); err != nil {
		return err
	}
	return l.get().Compact(ctx, focus)
}

func (l *lazyAgent) Usage() (llm.Usage, float64) {
	if ag := l.get(); ag != nil {
		return ag.Usage()
	}
	return llm.Usage{}, 0
}

func (l *lazyAgent) Clear() {
	if ag := l.get(); ag != nil {
		ag.Clear()
	}
	l.rt.resumedClear()
	l.rt.clearTodos()
	l.rt.ctxMgr.Reset()
	l.rt.firstTurn = true // the instructions went with the history
}

// resume switches the REPL to session id: its history goes into the agent
// and new records append to its file.
func (l *lazyAgent) resume(ctx context.Context, id string) error {
	path, err := session.Find(l.rt.home, id)
	if err != nil {
		return err
	}
	loaded, err := session.Load(path)
	if err != nil {
		return err
	}
	if err := l.rt.prepare(ctx); err != nil {
		return err
	}
	w, err := session.Append(path)
	if err != nil {
		return err
	}
	if err := l.rt.rec.switchTo(w); err != nil {
		l.rt.emit(agent.Notice{Level: "warn", Text: "closing the previous session file: " + err.Error()})
	}
	l.get().SetHistory(loaded.Messages)
	l.rt.firstTurn = false
	return nil
}

// replExtras backs /skills, /memory, /remember, /goal and /SKILL-NAME.
func (rt *hewRuntime) replExtras() repl.Extras {
	store := memory.Open(rt.stateDir)
	return repl.Extras{
		Skills: func() []repl.SkillCommand {
			var out []repl.SkillCommand
			for _, s := range rt.skills {
				if s.UserInvocable {
					out = append(out, repl.SkillCommand{Name: s.Name, Description: s.Description, Source: s.Source})
				}
			}
			return out
		},
		SkillPrompt: func(name, args string) (string, bool) {
			for _, s := range rt.skills {
				if s.UserInvocable && strings.EqualFold(s.Name, name) {
					return fmt.Sprintf("Run the %q skill (%s) with arguments: %s\n\n%s", s.Name, s.Path, args, s.Expand(args)), true
				}
			}
			return "", false
		},
		Memories: func() ([]string, error) {
			list, err := store.List()
			out := make([]string, 0, len(list))
			for _, m := range list {
				out = append(out, fmt.Sprintf("%-9s %-30s %s", m.Type, m.Name, m.Description))
			}
			return out, err
		},
		Remember: func(text string) (string, error) {
			m, err := store.Add(memory.Memory{Body: text})
			if err != nil {
				return "", err
			}
			return m.Type + "/" + m.Name + ", used from the next session on", nil
		},
		Goal: func(ctx context.Context, cond string) agent.TurnResult {
			rt.goal = cond
			return rt.turn(ctx, "Work toward this goal: "+cond, nil)
		},
		LoopRound: rt.loopRound,
	}
}

// loopRound runs one round of /loop dynamic: schedule_wakeup becomes
// visible, and whatever wake-up the model asks for decides the next round.
func (rt *hewRuntime) loopRound(ctx context.Context, prompt string) (time.Duration, string, bool) {
	rt.registry.Activate(wakeup.Name)
	rt.wakeup.Begin()
	res := rt.turn(ctx, prompt+"\n\n(This is one round of a dynamic loop. If the task needs another look later, end the round by calling schedule_wakeup with the delay; if it is done, do not call it.)", nil)
	w, ok := rt.wakeup.Take()
	if res.StopReason != agent.StopCompleted {
		return 0, "", false
	}
	return w.Delay, w.Reason, ok
}
