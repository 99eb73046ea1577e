package repl

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hew-dev/hew/internal/checkpoint"
	"github.com/hew-dev/hew/internal/ui/render"
)

// cmdUndo shows what taking back the last turn's file changes (or the last
// N turns') would do, asks, and applies it.
func (ss *session) cmdUndo(ctx context.Context, arg string) {
	n := 1
	if arg = strings.TrimSpace(arg); arg != "" {
		v, err := strconv.Atoi(arg)
		if err != nil || v < 1 {
			ss.r.Notice("error", "usage: /undo [N] — N is the number of turns to take back (default 1)")
			return
		}
		n = v
	}
	plan, err := ss.ag.PlanUndo(n, false)
	if err != nil {
		ss.r.Notice("error", "undo: "+err.Error())
		return
	}
	ss.applyPlan(ctx, plan, "Undo these changes?")
}

// cmdRewind lists the conversation's user messages with the files each
// turn changed; /rewind N [code|conversation|both] goes back to before
// message N.
func (ss *session) cmdRewind(ctx context.Context, arg string) {
	points, err := ss.ag.RewindPoints()
	if err != nil {
		ss.r.Notice("error", "rewind: "+err.Error())
		return
	}
	fields := strings.Fields(arg)
	if len(fields) == 0 {
		if len(points) == 0 {
			ss.printf("Nothing to rewind: this conversation has no messages yet.")
			return
		}
		for i, p := range points {
			files := ss.r.Dim("no file changes")
			when := ""
			if p.Turn != nil {
				files = fmt.Sprintf("%d file(s) changed", len(p.Turn.Changes))
				if p.Turn.Undone {
					files += " (undone)"
				}
				when = ss.r.Dim(p.Turn.End.Local().Format("15:04")) + "  "
			}
			ss.printf("  %2d. %s%s  %s", i+1, when, render.Truncate(strings.Join(strings.Fields(p.Prompt), " "), 60), files)
		}
		ss.r.Println(ss.r.Dim("Type /rewind N [code|conversation|both] (default both) to go back to before message N."))
		return
	}
	i, err := strconv.Atoi(fields[0])
	if err != nil || i < 1 || i > len(points) {
		ss.r.Notice("error", fmt.Sprintf("rewind: pick a message from 1 to %d (/rewind lists them)", len(points)))
		return
	}
	what := "both"
	if len(fields) > 1 {
		what = fields[1]
	}
	if what != "code" && what != "conversation" && what != "both" {
		ss.r.Notice("error", "rewind: say code, conversation or both")
		return
	}
	p := points[i-1]
	if what != "conversation" {
		plan, err := ss.ag.PlanRewindCode(p, false)
		if err != nil {
			ss.r.Notice("error", "rewind: "+err.Error())
			return
		}
		if !plan.Empty() || len(plan.Refused) > 0 {
			if !ss.applyPlan(ctx, plan, "Restore the code to before message "+fields[0]+"?") {
				return
			}
		} else if what == "code" {
			ss.printf("The files are already as they were before message %d.", i)
			return
		}
	}
	if what != "code" {
		if !ss.confirm(ctx, fmt.Sprintf("Drop message %d and everything after it from the conversation?", i)) {
			ss.printf("Conversation kept.")
			return
		}
		if err := ss.ag.RewindConversation(p); err != nil {
			ss.r.Notice("error", err.Error())
			return
		}
		ss.printf("The conversation is back to before message %d (%d messages kept).", i, len(ss.ag.History()))
	}
}

// applyPlan shows a plan, asks and applies it; it reports whether the user
// went ahead.
func (ss *session) applyPlan(ctx context.Context, plan *checkpoint.Plan, question string) bool {
	ss.r.Println(strings.TrimRight(plan.Summary(), "\n"))
	if plan.Empty() {
		return false
	}
	if !ss.confirm(ctx, question) {
		ss.printf("Nothing was changed.")
		return false
	}
	done, err := plan.Apply()
	if err != nil {
		ss.r.Notice("error", fmt.Sprintf("undo stopped after %d file(s): %v", len(done), err))
		return false
	}
	msg := fmt.Sprintf("Restored %d file(s).", len(done))
	if len(plan.Refused) > 0 {
		msg += fmt.Sprintf(" %d left alone (changed since; hew undo --force takes them back).", len(plan.Refused))
	}
	ss.printf("%s", msg)
	return true
}

// confirm asks a yes/no question on the prompt line; only y or yes is yes.
func (ss *session) confirm(ctx context.Context, question string) bool {
	line, err := ss.in.Read(ctx, question+" [y/N] ")
	if err != nil {
		return false
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}
