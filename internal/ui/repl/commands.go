package repl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/ui/render"
)

// command is one slash command.
type command struct {
	name, args, help string
	run              func(ss *session, ctx context.Context, args string)
}

// commands lists the slash commands in /help order.
var commands []command

func init() {
	commands = []command{
		{"help", "", "list the commands", (*session).cmdHelp},
		{"clear", "", "start a new session (the previous one stays resumable)", (*session).cmdClear},
		{"compact", "[focus]", "summarise the conversation to free context", (*session).cmdCompact},
		{"cost", "", "tokens used and estimated cost", (*session).cmdCost},
		{"status", "", "session, model, mode, tokens, cache and context use", (*session).cmdStatus},
		{"model", "[NAME]", "show or switch the model", (*session).cmdModel},
		{"mode", "[MODE]", "show or switch the permission mode", (*session).cmdMode},
		{"plan", "", "switch to plan mode (read-only until you approve a plan)", (*session).cmdPlan},
		{"resume", "[ID|N]", "list this directory's sessions, or resume one", (*session).cmdResume},
		{"goal", "CONDITION", "work until an evaluator judges CONDITION met", (*session).cmdGoal},
		{"loop", "INTERVAL|dynamic PROMPT|stop", "run PROMPT now and every INTERVAL (1m–1h), or when the model schedules, until /loop stop or Ctrl+C", (*session).cmdLoop},
		{"skills", "", "list skills; run one with /NAME ARGS", (*session).cmdSkills},
		{"memory", "", "list this project's long-term memory (/memory show|forget NAME)", (*session).cmdMemory},
		{"remember", "TEXT", "add TEXT to this project's long-term memory", (*session).cmdRemember},
		{"undo", "[N]", "take back the file changes of the last turn (or N turns), asking first", (*session).cmdUndo},
		{"rewind", "[N [WHAT]]", "list messages, or go back to before message N (WHAT: code, conversation or both)", (*session).cmdRewind},
		{"exit", "", "leave hew (also /quit, Ctrl+D)", (*session).cmdExit},
	}
}

func (ss *session) command(ctx context.Context, name, args string) {
	if name == "quit" {
		name = "exit"
	}
	for _, c := range commands {
		if c.name == name {
			c.run(ss, ctx, args)
			return
		}
	}
	if ss.runSkill(ctx, name, args) {
		return
	}
	ss.r.Println(ss.r.Error(fmt.Sprintf("Unknown command /%s.", name)) + " Type /help for the list (start a message with // to send a leading slash).")
}

// helpKeys are the keys /help lists on a terminal.
var helpKeys = [][2]string{
	{"Esc, Ctrl+C", "stop the running turn (also at an approval question)"},
	{"Ctrl+C Ctrl+C", "exit, at an empty prompt"},
	{"Ctrl+J, Alt+Enter", "new line in the message (also \\ then Enter, Shift+Enter where reported)"},
	{"Shift+Tab", "cycle the permission mode: default, acceptEdits, plan, auto"},
	{"Tab", "complete /commands, skills and @file paths"},
	{"@path", "attach that file's content to the message"},
	{"Ctrl+O", "show the last tool call's full output"},
	{"Up, Down, Ctrl+R", "previous messages; search them"},
	{"paste", "a multi-line paste is one message"},
}

func (ss *session) cmdHelp(context.Context, string) {
	var rows [][2]string
	for _, c := range commands {
		use := "/" + c.name
		if c.args != "" {
			use += " " + c.args
		}
		rows = append(rows, [2]string{use, c.help})
	}
	for _, sk := range ss.ag.Skills() {
		rows = append(rows, [2]string{"/" + sk.Name + " [args]", "skill: " + sk.Description})
	}
	keys := helpKeys[:2]
	if ss.s.InTTY {
		keys = helpKeys
	}
	// One column width for both tables, wide enough for the longest entry
	// but never so wide that the descriptions lose half the screen.
	w := 0
	for _, r := range append(append([][2]string(nil), rows...), keys...) {
		if n := render.Width(r[0]); n <= 26 {
			w = max(w, n)
		}
	}
	show := func(r [2]string) {
		if render.Width(r[0]) > w { // too long for the column: text below it
			ss.r.Println("  " + r[0])
			ss.r.Println("  " + strings.Repeat(" ", w) + "  " + ss.r.Dim(r[1]))
			return
		}
		ss.r.Println("  " + r[0] + strings.Repeat(" ", w-render.Width(r[0])) + "  " + ss.r.Dim(r[1]))
	}
	ss.r.Println(ss.r.Bold("Commands"))
	for _, r := range rows {
		show(r)
	}
	ss.r.Println(ss.r.Bold("Keys"))
	for _, r := range keys {
		show(r)
	}
}

func (ss *session) cmdClear(context.Context, string) {
	if prev := ss.ag.Clear(); prev != "" {
		ss.r.Println(ss.r.Dim("Conversation cleared; this is a new session. /resume " + prev + " returns to the previous one."))
		return
	}
	ss.r.Println(ss.r.Dim("Conversation cleared."))
}

// cmdCompact summarises the conversation. The runtime's own "context
// compacted: before → after" notice is the one confirmation.
func (ss *session) cmdCompact(ctx context.Context, focus string) {
	ss.r.Working("Compacting")
	var err error
	ss.turn(ctx, func(c context.Context) { err = ss.ag.Compact(c, focus) })
	switch {
	case errors.Is(err, context.Canceled) && ctx.Err() == nil:
		ss.r.Notice("warn", "compaction interrupted; the conversation is unchanged")
	case err != nil:
		ss.r.Notice("error", "compaction failed: "+err.Error())
	}
}

func (ss *session) cmdCost(context.Context, string) {
	st := ss.ag.Status()
	u, cost := st.Usage, st.CostUSD
	ss.printf("%s in (%s cache read, %s cache write) · %s out · %s",
		render.FormatTokens(u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens),
		render.FormatTokens(u.CacheReadTokens), render.FormatTokens(u.CacheWriteTokens),
		render.FormatTokens(u.OutputTokens), costText(cost))
}

func costText(cost float64) string {
	if cost < 0 {
		return "cost unknown for this model"
	}
	return render.FormatCost(cost) + " (estimate)"
}

func (ss *session) cmdStatus(context.Context, string) {
	for _, l := range ss.statusLines() {
		ss.r.Println(l)
	}
}

// statusLines renders /status.
func (ss *session) statusLines() []string {
	info := ss.ag.Status()
	u, cost := info.Usage, info.CostUSD
	tok, win := info.ContextTokens, info.Window
	if tok == 0 {
		tok, win = ss.r.Context()
	}
	if win == 0 {
		win = llm.LookupModel(info.Model).ContextWindow
	}
	ctxText := "no request yet"
	if tok > 0 && win > 0 {
		ctxText = fmt.Sprintf("%d%% of %s tokens (%s used)", tok*100/win, render.FormatTokens(win), render.FormatTokens(tok))
	}
	rate := info.CacheHitRate
	if rate < 0 {
		rate = cacheHitRate(u)
	}
	rateText := "no cache reads yet"
	if rate >= 0 {
		rateText = fmt.Sprintf("%.0f%% of input read from cache", rate*100)
	}
	if n := info.ToolListMisses; n > 0 {
		// Tools lead the cached prefix: each change of the list (a deferred
		// tool activated) costs one whole cache miss.
		what := "1 cache miss"
		if n > 1 {
			what = fmt.Sprintf("%d cache misses", n)
		}
		rateText += fmt.Sprintf("; tool list changes (deferred tools activated) cost %s, %s tokens written again", what, render.FormatTokens(info.ToolListMissTokens))
	}
	model := info.Model
	if info.Provider != "" {
		model += " (" + info.Provider + ")"
	}
	id := info.ID
	if id == "" {
		id = "not recorded"
	}
	row := func(k, v string) string { return fmt.Sprintf("%-9s %s", ss.r.Dim(k), v) }
	if ss.r.Dim("x") != "x" { // keep columns aligned when the label is styled
		row = func(k, v string) string { return ss.r.Dim(fmt.Sprintf("%-9s", k)) + " " + v }
	}
	lines := []string{
		row("session", id),
		row("model", model),
		row("mode", string(info.Mode)),
		row("context", ctxText),
		row("tokens", fmt.Sprintf("in %s · out %s · cache read %s · cache write %s",
			render.FormatTokens(u.InputTokens), render.FormatTokens(u.OutputTokens),
			render.FormatTokens(u.CacheReadTokens), render.FormatTokens(u.CacheWriteTokens))),
		row("cache", rateText),
		row("cost", costText(cost)),
	}
	for _, m := range info.MCP {
		lines = append(lines, row("mcp", m))
	}
	if info.Trust != "" {
		lines = append(lines, row("trust", info.Trust))
	}
	for _, a := range info.Autonomy {
		lines = append(lines, row(a[0], a[1]))
	}
	for _, l := range info.Sandbox {
		lines = append(lines, row("sandbox", strings.TrimPrefix(strings.TrimPrefix(l, "sandbox: "), "sandbox ")))
	}
	return lines
}

// cacheHitRate is the share of prompt tokens served from the cache, or -1
// before any prompt tokens were counted.
func cacheHitRate(u llm.Usage) float64 {
	total := u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	if total == 0 {
		return -1
	}
	return float64(u.CacheReadTokens) / float64(total)
}

func (ss *session) cmdModel(ctx context.Context, name string) {
	if name == "" {
		ss.printf("Model: %s", ss.ag.Status().Model)
		return
	}
	if !llm.LookupModel(name).Known {
		ss.r.Println(ss.r.Error("Unknown model "+name+".") + " Known: " + strings.Join(llm.KnownModels(), ", ") + ".")
		ans, err := ss.ask(ctx, "Use "+name+" anyway (a custom or newer model)? [y/N] ")
		if a := strings.ToLower(strings.TrimSpace(ans)); err != nil || a != "y" && a != "yes" {
			ss.printf("Model unchanged: %s", ss.ag.Status().Model)
			return
		}
	}
	if err := ss.ag.SetModel(name); err != nil {
		ss.r.Notice("error", "cannot use model "+name+": "+err.Error())
		return
	}
	ss.printf("Model: %s", name)
}

// modes are the permission modes /mode accepts, in SPEC order.
var modes = []permission.Mode{permission.ModeDefault, permission.ModePlan, permission.ModeAcceptEdits,
	permission.ModeBypass, permission.ModeDontAsk, permission.ModeAuto}

func (ss *session) cmdMode(_ context.Context, arg string) {
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = string(m)
	}
	if arg == "" {
		ss.printf("Mode: %s %s", ss.ag.Mode(), ss.r.Dim("(one of "+strings.Join(names, ", ")+")"))
		return
	}
	for _, m := range modes {
		if strings.EqualFold(string(m), arg) {
			ss.ag.SetMode(m)
			ss.printf("Mode: %s", m)
			return
		}
	}
	ss.r.Notice("error", fmt.Sprintf("unknown mode %q; use one of %s", arg, strings.Join(names, ", ")))
}

func (ss *session) cmdPlan(ctx context.Context, _ string) {
	ss.cmdMode(ctx, string(permission.ModePlan))
}

func (ss *session) cmdResume(ctx context.Context, arg string) {
	list, err := ss.ag.Sessions()
	if err != nil {
		ss.r.Notice("error", "listing sessions: "+err.Error())
		return
	}
	if arg == "" {
		if len(list) == 0 {
			ss.printf("No earlier sessions in this directory.")
			return
		}
		width := ss.s.Width()
		for i, s := range list[:min(len(list), 10)] {
			meta := fmt.Sprintf("%-8s %3d msgs", render.Age(ss.now().Sub(s.Updated)), s.Messages)
			title := strings.Join(strings.Fields(s.Title), " ")
			if title == "" {
				title = "(no prompt)"
			}
			title = render.Truncate(title, max(width-len(meta)-len(s.ID)-14, 20))
			ss.printf("  %2d. %s  %s  %s", i+1, ss.r.Dim(meta), title, ss.r.Dim(s.ID))
		}
		ss.r.Println(ss.r.Dim("Type /resume N or /resume ID."))
		return
	}
	id := arg
	if n, err := strconv.Atoi(arg); err == nil && n >= 1 && n <= len(list) {
		id = list[n-1].ID
	}
	if err := ss.ag.Resume(ctx, id); err != nil {
		ss.r.Notice("error", "resume "+id+": "+err.Error())
		return
	}
	ss.showTranscript()
	ss.printf("Resumed session %s (%d messages).", id, len(ss.ag.History()))
}

// ask reads the answer to a question; on a terminal it stays out of the
// input history.
func (ss *session) ask(ctx context.Context, prompt string) (string, error) {
	if ss.tty != nil {
		return ss.tty.ask(ctx, prompt)
	}
	return ss.in.Read(ctx, prompt)
}

// transcriptExchanges is how many of the last exchanges a resume redraws.
const transcriptExchanges = 3

// showTranscript redraws the end of the conversation (after a resume).
func (ss *session) showTranscript() {
	h := ss.ag.History()
	if len(h) == 0 {
		return
	}
	if skipped := ss.r.Transcript(h, transcriptExchanges); skipped > 0 {
		ss.r.Println(ss.r.Dim(fmt.Sprintf("(%d earlier messages not shown)", skipped)))
	}
	ss.r.Println("")
}

func (ss *session) cmdExit(context.Context, string) {
	ss.done, ss.exitCode = true, ExitOK
}

// farewell says how to come back to this session, if it has anything.
func (ss *session) farewell() {
	if id := ss.ag.Status().ID; id != "" && len(ss.ag.History()) > 0 {
		ss.r.Println(ss.r.Dim("Resume this session with: hew --resume " + id))
	}
}
