package plan

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/plan"
	"github.com/hew-dev/hew/internal/tools"
)

// session is a fake holder of the permission mode, as the app keeps it.
type session struct {
	mu   sync.Mutex
	mode permission.Mode
}

func (s *session) get() permission.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

func (s *session) set(m permission.Mode) {
	s.mu.Lock()
	s.mode = m
	s.mu.Unlock()
}

var day = time.Date(2026, 11, 30, 13, 45, 0, 0, time.UTC)

func newSet(t *testing.T, start permission.Mode) (*Set, *session, string, *tools.Registry) {
	t.Helper()
	ses := &session{mode: start}
	dir := filepath.Join(t.TempDir(), "plans")
	reg := tools.NewRegistry()
	s := NewTools(Options{Mode: ses.get, SetMode: ses.set, PlansDir: dir, Now: func() time.Time { return day }, Registry: reg,
		Decide: func(context.Context, string, string) (plan.Choice, string) { return plan.ChoiceExecute, "" }})
	for _, tl := range s.Tools() {
		reg.Register(tl)
	}
	return s, ses, dir, reg
}

func run(t *testing.T, reg *tools.Registry, name, input string) tools.Result {
	t.Helper()
	tl, ok := reg.Get(name)
	if !ok {
		t.Fatalf("tool %s not registered", name)
	}
	if c, ok := tl.(tools.Checker); ok {
		if err := c.Check(nil, json.RawMessage(input)); err != nil {
			return tools.Result{Content: err.Error(), IsError: true}
		}
	}
	res, err := tl.Run(context.Background(), &tools.Env{}, json.RawMessage(input))
	if err != nil {
		return tools.Result{Content: err.Error(), IsError: true}
	}
	return res
}

func planFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestToolsAreDeferredUntilSearched(t *testing.T) {
	_, _, _, reg := newSet(t, permission.ModeDefault)
	if n := len(reg.Specs()); n != 0 {
		t.Fatalf("deferred plan tools must not be sent before tool_search; got %d specs", n)
	}
	var names []string
	for _, tl := range reg.Deferred() {
		names = append(names, tl.Name())
	}
	if !slices.Equal(names, []string{EnterName, ExitName}) {
		t.Fatalf("deferred tools = %v", names)
	}
	reg.Activate(EnterName)
	if got := reg.Names(); !slices.Equal(got, []string{EnterName}) {
		t.Fatalf("after activation the model sees %v", got)
	}
	for _, tl := range reg.All() {
		if !json.Valid(tl.Schema()) || tl.Description() == "" {
			t.Errorf("%s: invalid schema or empty description", tl.Name())
		}
	}
}

func TestEnterPlanMode(t *testing.T) {
	tests := []struct {
		name     string
		start    permission.Mode
		wantText string
	}{
		{"from default", permission.ModeDefault, "previous mode, default"},
		{"from acceptEdits", permission.ModeAcceptEdits, "previous mode, acceptEdits"},
		{"already planning", permission.ModePlan, "Already in plan mode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ses, _, reg := newSet(t, tc.start)
			res := run(t, reg, EnterName, `{}`)
			if res.IsError || !strings.Contains(res.Content, tc.wantText) || !strings.Contains(res.Content, "exit_plan_mode") {
				t.Fatalf("result = %+v", res)
			}
			if ses.get() != permission.ModePlan {
				t.Fatalf("mode = %s, want plan", ses.get())
			}
			if !reg.Visible(ExitName) {
				t.Fatal("entering plan mode should load exit_plan_mode for the model")
			}
			want := tc.start
			if want == permission.ModePlan {
				want = permission.ModeDefault
			}
			if s.Previous() != want {
				t.Fatalf("remembered %s, want %s", s.Previous(), want)
			}
		})
	}
}

func TestExitPlanModeSavesPlanAndRestoresMode(t *testing.T) {
	const plan = "# Plan: Add response caching\n\n1. Edit cache.go\n2. Run go test ./...\n"
	tests := []struct {
		name     string
		before   permission.Mode // mode when enter_plan_mode ran; "" = started in plan mode
		remember permission.Mode // what /plan told the set, if anything
		want     permission.Mode
	}{
		{"back to acceptEdits", permission.ModeAcceptEdits, "", permission.ModeAcceptEdits},
		{"back to auto", permission.ModeAuto, "", permission.ModeAuto},
		{"started in plan mode", "", "", permission.ModeDefault},
		{"entered with /plan", "", permission.ModeDontAsk, permission.ModeDontAsk},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := tc.before
			if start == "" {
				start = permission.ModePlan
			}
			s, ses, dir, reg := newSet(t, start)
			if tc.before != "" {
				run(t, reg, EnterName, `{}`)
			}
			if tc.remember != "" {
				s.Remember(tc.remember)
			}
			in, _ := json.Marshal(map[string]string{"plan": plan})
			res := run(t, reg, ExitName, string(in))
			if res.IsError {
				t.Fatalf("exit failed: %s", res.Content)
			}
			if ses.get() != tc.want {
				t.Fatalf("mode after exit = %s, want %s", ses.get(), tc.want)
			}
			path := filepath.Join(dir, "2026-11-30-add-response-caching.md")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("plan file: %v (files: %v)", err, planFiles(t, dir))
			}
			if string(data) != strings.TrimSpace(plan)+"\n" {
				t.Fatalf("plan file holds %q", data)
			}
			if !strings.Contains(res.Content, path) || !strings.Contains(res.Content, string(tc.want)) {
				t.Fatalf("result should say where the plan is and the new mode: %s", res.Content)
			}
			if files := planFiles(t, dir); len(files) != 1 {
				t.Fatalf("temporary files left behind: %v", files)
			}
		})
	}
}

func TestExitPlanModeOutsidePlanMode(t *testing.T) {
	_, ses, dir, reg := newSet(t, permission.ModeAcceptEdits)
	res := run(t, reg, ExitName, `{"plan":"# Do it"}`)
	if !res.IsError || !strings.Contains(res.Content, "not in plan mode") || !strings.Contains(res.Content, "acceptEdits") {
		t.Fatalf("want an error the model can act on, got %+v", res)
	}
	if ses.get() != permission.ModeAcceptEdits {
		t.Fatalf("mode changed to %s", ses.get())
	}
	if files := planFiles(t, dir); len(files) != 0 {
		t.Fatalf("no plan should be written outside plan mode: %v", files)
	}
}

func TestExitPlanModeRefusesBlankPlan(t *testing.T) {
	_, ses, dir, reg := newSet(t, permission.ModePlan)
	res := run(t, reg, ExitName, `{"plan":"  \n "}`)
	if !res.IsError || !strings.Contains(res.Content, "plan is empty") {
		t.Fatalf("got %+v", res)
	}
	if ses.get() != permission.ModePlan || len(planFiles(t, dir)) != 0 {
		t.Fatal("a blank plan must neither leave plan mode nor write a file")
	}
}

func TestPlanNamesNeverCollide(t *testing.T) {
	_, ses, dir, reg := newSet(t, permission.ModeDefault)
	for i := 0; i < 3; i++ {
		run(t, reg, EnterName, `{}`)
		if res := run(t, reg, ExitName, `{"plan":"## Fix the login bug\nsteps"}`); res.IsError {
			t.Fatal(res.Content)
		}
	}
	got := planFiles(t, dir)
	want := []string{"2026-11-30-fix-the-login-bug-2.md", "2026-11-30-fix-the-login-bug-3.md", "2026-11-30-fix-the-login-bug.md"}
	if !slices.Equal(got, want) {
		t.Fatalf("files = %v, want %v", got, want)
	}
	if ses.get() != permission.ModeDefault {
		t.Fatalf("mode = %s", ses.get())
	}
}

func TestSaveFailureKeepsPlanMode(t *testing.T) {
	ses := &session{mode: permission.ModePlan}
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewTools(Options{Mode: ses.get, SetMode: ses.set, PlansDir: filepath.Join(blocker, "plans")})
	_, err := s.Tools()[1].Run(context.Background(), &tools.Env{}, json.RawMessage(`{"plan":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "still in plan mode") {
		t.Fatalf("err = %v", err)
	}
	if ses.get() != permission.ModePlan {
		t.Fatalf("mode = %s after a failed save", ses.get())
	}
}

func TestUnwiredToolsFailCleanly(t *testing.T) {
	s := NewTools(Options{PlansDir: t.TempDir()})
	for _, tl := range s.Tools() {
		if _, err := tl.Run(context.Background(), &tools.Env{}, json.RawMessage(`{"plan":"x"}`)); err == nil {
			t.Errorf("%s without mode callbacks should fail", tl.Name())
		}
	}
}
