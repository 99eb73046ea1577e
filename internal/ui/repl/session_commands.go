package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/agent"
)

// Loop bounds for /loop INTERVAL (the seed's 60–3600 s).
const (
	minLoopInterval = 60 * time.Second
	maxLoopInterval = time.Hour
)

func (ss *session) cmdSkills(context.Context, string) {
	list := ss.ag.Skills()
	if len(list) == 0 {
		ss.printf("No skills found (.hew/skills, .claude/skills, $HEW_HOME/skills, ~/.claude/skills).")
		return
	}
	for _, s := range list {
		ss.printf("  /%-16s %s %s", s.Name, s.Description, ss.r.Dim("("+s.Source+")"))
	}
}

func (ss *session) cmdMemory(ctx context.Context, args string) {
	out, err := ss.ag.Memory(ctx, args)
	if err != nil {
		ss.r.Notice("error", err.Error())
		return
	}
	for _, l := range strings.Split(out, "\n") {
		ss.printf("%s", l)
	}
}

func (ss *session) cmdRemember(_ context.Context, text string) {
	if text == "" {
		ss.printf("Usage: /remember TEXT")
		return
	}
	where, err := ss.ag.Remember(text)
	if err != nil {
		ss.r.Notice("error", err.Error())
		return
	}
	ss.printf("Remembered (%s).", where)
}

func (ss *session) cmdGoal(ctx context.Context, cond string) {
	if cond == "" {
		ss.printf("Usage: /goal CONDITION (hew works until an evaluator judges it met)")
		return
	}
	var res agent.TurnResult
	ss.turn(ctx, func(c context.Context) { res = ss.ag.Goal(c, cond) })
	switch res.StopReason {
	case agent.StopGoalMet:
		ss.printf("Goal met.")
	case agent.StopGoalImpossible:
		ss.r.Notice("warn", "goal judged impossible: "+res.Err)
	default:
		msg := "goal stopped: " + string(res.StopReason)
		if res.Err != "" {
			msg += ": " + res.Err
		}
		ss.r.Notice("warn", msg)
	}
}

// cmdLoop runs PROMPT now and again every INTERVAL until Ctrl+C.
func (ss *session) cmdLoop(ctx context.Context, args string) {
	spec, prompt, _ := strings.Cut(args, " ")
	prompt = strings.TrimSpace(prompt)
	if spec == "stop" {
		ss.printf("No loop is running.")
		return
	}
	if spec == "dynamic" {
		ss.dynamicLoop(ctx, prompt)
		return
	}
	every, err := time.ParseDuration(spec)
	if err != nil || prompt == "" {
		ss.printf("Usage: /loop INTERVAL PROMPT (e.g. /loop 10m check the CI); Ctrl+C stops it.")
		return
	}
	if every < minLoopInterval || every > maxLoopInterval {
		clamped := min(max(every, minLoopInterval), maxLoopInterval)
		ss.r.Notice("warn", fmt.Sprintf("interval %s is outside 1m–1h; using %s", every, clamped))
		every = clamped
	}
	ss.ag.LoopStarted()
	defer ss.ag.LoopEnded()
	for round := 1; ; round++ {
		ss.r.Println(ss.r.Dim(fmt.Sprintf("loop round %d (every %s; Ctrl+C stops)", round, every)))
		stopped := false
		interrupted := ss.turn(ctx, func(c context.Context) {
			res := ss.ag.Submit(c, prompt)
			stopped = res.StopReason == agent.StopAborted
		})
		if interrupted || stopped || ctx.Err() != nil {
			ss.printf("Loop stopped.")
			return
		}
		if ok, why := ss.ag.LoopNext(round, every, ""); !ok {
			ss.printf("Loop ended: %s.", why)
			return
		}
		ss.r.Println(ss.r.Dim(fmt.Sprintf("next round at %s (in %s); /loop stop or Ctrl+C stops the loop", time.Now().Add(every).Format("15:04:05"), every)))
		if ss.waitLoop(ctx, every) {
			return
		}
	}
}

// dynamicLoop runs PROMPT in rounds; the model schedules each next round
// with schedule_wakeup, and the loop ends when it schedules none or on Ctrl+C.
func (ss *session) dynamicLoop(ctx context.Context, prompt string) {
	if prompt == "" {
		ss.printf("Usage: /loop dynamic PROMPT (the model schedules each next round); Ctrl+C stops it.")
		return
	}
	ss.ag.LoopStarted()
	defer ss.ag.LoopEnded()
	for round := 1; ; round++ {
		ss.r.Println(ss.r.Dim(fmt.Sprintf("loop round %d (the model schedules the next; Ctrl+C stops)", round)))
		var wait time.Duration
		var reason string
		var again bool
		interrupted := ss.turn(ctx, func(c context.Context) { wait, reason, again = ss.ag.LoopRound(c, prompt) })
		if interrupted || ctx.Err() != nil {
			ss.printf("Loop stopped.")
			return
		}
		if !again {
			ss.printf("Loop ended: no next round was scheduled.")
			return
		}
		if ok, why := ss.ag.LoopNext(round, wait, reason); !ok {
			ss.printf("Loop ended: %s.", why)
			return
		}
		ss.r.Println(ss.r.Dim(fmt.Sprintf("next round at %s (in %s): %s", time.Now().Add(wait).Format("15:04:05"), wait, reason)))
		if ss.waitLoop(ctx, wait) {
			return
		}
	}
}

// runSkill sends /NAME ARGS as the skill's expanded text; false when no
// user-invocable skill has that name.
func (ss *session) runSkill(ctx context.Context, name, args string) bool {
	found := false
	ss.turn(ctx, func(c context.Context) { _, found = ss.ag.RunSkill(c, name, args) })
	if found {
		ss.r.Println("")
	}
	return found
}

// waitLoop waits d for a loop's next round while the prompt stays usable:
// a typed line runs as usual (a task, /status), "/loop stop" or Ctrl+C
// ends the loop. It reports true when the loop must end.
func (ss *session) waitLoop(ctx context.Context, d time.Duration) (stop bool) {
	deadline := time.Now().Add(d)
	inputDone := false
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		if inputDone { // no more input: just wait, still stoppable by Ctrl+C
			select {
			case <-time.After(left):
				return false
			case <-ss.ints:
				ss.printf("Loop stopped.")
				return true
			case <-ctx.Done():
				return true
			}
		}
		wctx, cancel := context.WithTimeout(ctx, left)
		line, err := ss.in.Read(wctx, ss.prompt())
		timedOut := wctx.Err() != nil
		cancel()
		switch {
		case ctx.Err() != nil:
			return true
		case errors.Is(err, errInterrupt):
			ss.printf("Loop stopped.")
			return true
		case errors.Is(err, io.EOF):
			inputDone = true
			continue
		case timedOut:
			return false
		case err != nil:
			return true
		}
		switch line = strings.TrimSpace(line); {
		case line == "/loop stop":
			ss.printf("Loop stopped.")
			return true
		case strings.HasPrefix(line, "/loop"):
			ss.printf("A loop is running; /loop stop ends it first.")
		case line != "":
			ss.handle(ctx, line)
		}
		if ss.done {
			return true
		}
	}
}
