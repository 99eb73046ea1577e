// Package plan holds plan mode's two deferred tools, enter_plan_mode and
// exit_plan_mode. They change the session's permission mode through
// callbacks, so plan mode is enforced by the permission engine (not only
// announced to the model), and they never need the agent itself. What a
// finished plan becomes (the user's choice, the plan file) is internal/plan.
package plan

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/plan"
	"github.com/hew-dev/hew/internal/tools"
)

// Tool names (SPEC section 4).
const (
	EnterName = "enter_plan_mode"
	ExitName  = "exit_plan_mode"
)

//go:embed *.md
var descriptions embed.FS

// Options connects the tools to the session.
type Options struct {
	// Mode returns the session's current permission mode.
	Mode func() permission.Mode
	// SetMode changes the session's permission mode (the agent's and
	// whatever the front-end shows).
	SetMode func(permission.Mode)
	// PlansDir is where approved plans are saved ($HEW_HOME/plans).
	PlansDir string
	// Now dates plan files; nil means time.Now.
	Now func() time.Time
	// Registry, when set, lets enter_plan_mode load exit_plan_mode for the
	// model so it needs no extra tool_search round trip.
	Registry *tools.Registry
	// Decide asks the user what to do with a saved plan (the terminal's
	// menu). nil means nobody can be asked (headless): the plan is saved,
	// becomes the run's final answer and the turn ends; the mode stays plan.
	// No permission mode answers it: only the user approves a plan.
	Decide plan.Decider
	// ClearAndRun, for plan.ChoiceClearAndExecute, is told the plan; the session
	// starts a fresh conversation with it once the turn has ended. nil makes
	// that choice act like plan.ChoiceExecute.
	ClearAndRun func(plan, path string)
}

// Set is the pair of plan tools sharing one remembered previous mode.
type Set struct {
	o     Options
	mu    sync.Mutex
	prev  permission.Mode // the mode before plan mode; "" when unknown
	enter *enterTool
	exit  *exitTool
}

// NewTools builds the plan tools for one session.
func NewTools(o Options) *Set {
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Set{o: o}
	s.enter = &enterTool{Spec: enterSpec, s: s}
	s.exit = &exitTool{Spec: exitSpec, s: s}
	return s
}

// Tools returns enter_plan_mode and exit_plan_mode, ready to register.
func (s *Set) Tools() []tools.Tool { return []tools.Tool{s.enter, s.exit} }

// Remember records the mode to restore when plan mode ends. Front-ends call
// it when the user enters plan mode directly (/plan, /mode plan), so
// exit_plan_mode goes back to where the user was rather than to default.
func (s *Set) Remember(prev permission.Mode) {
	if prev == permission.ModePlan {
		return
	}
	s.mu.Lock()
	s.prev = prev
	s.mu.Unlock()
}

// Previous is the mode exit_plan_mode would restore (default when unknown).
func (s *Set) Previous() permission.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prev == "" {
		return permission.ModeDefault
	}
	return s.prev
}

func (s *Set) mode() (permission.Mode, error) {
	if s.o.Mode == nil || s.o.SetMode == nil {
		return "", errors.New("plan mode is not available in this session")
	}
	return s.o.Mode(), nil
}

type enterTool struct {
	tools.Spec
	s *Set
}

var enterSpec = tools.NewSpec(descriptions, EnterName, `{"type":"object","properties":{},"additionalProperties":false}`)

// ReadOnly and Deferred implement tools.Tool and tools.Deferred: the tool
// is loaded through tool_search and never runs alongside other calls.
func (*enterTool) ReadOnly(json.RawMessage) bool { return false }

// ChangesNoFiles implements tools.FileNeutral: it switches the mode only.
func (*enterTool) ChangesNoFiles() bool { return true }
func (*enterTool) Deferred() bool       { return true }

// MainAgentOnly and SessionOnly implement tools.MainAgentOnly and
// tools.SessionOnly: plan mode is the main conversation's mode.
func (*enterTool) MainAgentOnly() bool { return true }
func (*enterTool) SessionOnly() bool   { return true }

// Run switches to plan mode, remembering the mode to come back to.
func (t *enterTool) Run(_ context.Context, _ *tools.Env, _ json.RawMessage) (tools.Result, error) {
	cur, err := t.s.mode()
	if err != nil {
		return tools.Result{}, err
	}
	var loads []string // exit_plan_mode reaches a model that loads tools natively by reference
	if t.s.o.Registry != nil {
		t.s.o.Registry.Activate(ExitName)
		loads = []string{ExitName}
	}
	if cur == permission.ModePlan {
		return tools.Result{Content: "Already in plan mode. Keep exploring read-only; when the plan is ready, call exit_plan_mode with it.", Loads: loads}, nil
	}
	t.s.Remember(cur)
	t.s.o.SetMode(permission.ModePlan)
	return tools.Result{Content: fmt.Sprintf(`Entered plan mode (the previous mode, %s, comes back when the plan is accepted).
Plan mode means:
- explore read-only: read, list and search files, run read-only shell commands;
- file edits, writes and commands that change anything are denied until the plan is accepted;
- when you know enough, call exit_plan_mode {"plan": "..."} with the complete plan as Markdown (goal, files and changes, ordered steps, how to verify). The user reviews it before anything changes.`, cur), Loads: loads}, nil
}

type exitTool struct {
	tools.Spec
	s *Set
}

var exitSpec = tools.NewSpec(descriptions, ExitName, `{"type":"object","properties":{"plan":{"type":"string","minLength":1,"description":"the complete plan as Markdown"}},"required":["plan"],"additionalProperties":false}`)

type exitInput struct {
	Plan string `json:"plan"`
}

// ReadOnly and Deferred implement tools.Tool and tools.Deferred: the tool
// is loaded through tool_search and never runs alongside other calls.
func (*exitTool) ReadOnly(json.RawMessage) bool { return false }

// ChangesNoFiles implements tools.FileNeutral: the plan is saved under
// $HEW_HOME, never in the project.
func (*exitTool) ChangesNoFiles() bool { return true }
func (*exitTool) Deferred() bool       { return true }

// MainAgentOnly and SessionOnly implement tools.MainAgentOnly and
// tools.SessionOnly: plan mode is the main conversation's mode.
func (*exitTool) MainAgentOnly() bool { return true }
func (*exitTool) SessionOnly() bool   { return true }

// Check refuses a blank plan before the user is asked to approve it.
func (*exitTool) Check(_ *tools.Env, input json.RawMessage) error {
	var in exitInput
	if err := json.Unmarshal(input, &in); err != nil {
		return fmt.Errorf("decode input: %w", err)
	}
	if strings.TrimSpace(in.Plan) == "" {
		return errors.New("exit_plan_mode: plan is empty; pass the complete plan as Markdown")
	}
	return nil
}

// Run saves the plan, then asks the user (Options.Decide) what to do with
// it: carry it out (after clearing the context, or in it) with the mode
// from before plan mode, keep the plan only, or keep planning.
func (t *exitTool) Run(ctx context.Context, _ *tools.Env, input json.RawMessage) (tools.Result, error) {
	cur, err := t.s.mode()
	if err != nil {
		return tools.Result{}, err
	}
	if cur != permission.ModePlan {
		return tools.Result{IsError: true, Content: fmt.Sprintf(
			"exit_plan_mode: not in plan mode (the permission mode is %s), so there is nothing to exit. Carry on with the task; to plan first, call enter_plan_mode.", cur)}, nil
	}
	var in exitInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Result{}, fmt.Errorf("decode input: %w", err)
	}
	path, err := t.s.save(in.Plan)
	if err != nil {
		return tools.Result{}, fmt.Errorf("exit_plan_mode: saving the plan failed, still in plan mode: %w", err)
	}
	planText := strings.TrimSpace(in.Plan)
	if t.s.o.Decide == nil {
		return tools.Result{
			Content: fmt.Sprintf("Plan saved to %s. Nobody can approve it in this run, so the run ends here in plan mode; the user reviews the plan.", path),
			EndTurn: planText + "\n\n(plan saved to " + path + ")",
		}, nil
	}
	choice, feedback := t.s.o.Decide(ctx, planText, path)
	if ctx.Err() != nil {
		return tools.Result{}, ctx.Err()
	}
	switch choice {
	case plan.ChoiceKeepPlanning, "":
		msg := fmt.Sprintf("The user did not approve the plan yet (saved to %s) and wants to keep planning. You are still in plan mode: refine the plan, then call exit_plan_mode again.", path)
		if f := strings.TrimSpace(feedback); f != "" {
			msg += "\nThe user's feedback: " + f
		}
		return tools.Result{Content: msg}, nil
	case plan.ChoiceKeepPlan:
		next := t.s.leave()
		return tools.Result{
			Content: fmt.Sprintf("The user kept the plan (saved to %s) to carry it out themselves; the permission mode is now %s. Do not start on it.", path, next),
			EndTurn: "Plan saved to " + path + ".",
		}, nil
	case plan.ChoiceClearAndExecute:
		if t.s.o.ClearAndRun != nil {
			next := t.s.leave()
			t.s.o.ClearAndRun(planText, path)
			return tools.Result{
				Content: fmt.Sprintf("Plan approved (saved to %s); the permission mode is now %s. The conversation is cleared and the plan is carried out in a fresh context.", path, next),
				EndTurn: "Plan approved; carrying it out in a fresh context.",
			}, nil
		}
	}
	next := t.s.leave()
	return tools.Result{Content: fmt.Sprintf("Plan accepted and saved to %s. Plan mode is over; the permission mode is now %s. Carry out the plan now, step by step, and verify the result as the plan says.", path, next)}, nil
}

// leave restores the mode from before plan mode and returns it.
func (s *Set) leave() permission.Mode {
	s.mu.Lock()
	next := s.prev
	s.prev = ""
	s.mu.Unlock()
	if next == "" {
		next = permission.ModeDefault
	}
	s.o.SetMode(next)
	return next
}

// save writes the plan to PlansDir (plan.Save).
func (s *Set) save(text string) (string, error) { return plan.Save(s.o.PlansDir, s.o.Now(), text) }
