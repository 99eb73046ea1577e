package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/skills"
	"github.com/hew-dev/hew/internal/tools"
)

func put(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Skills are found through tool_search, those past the prompt index's
// cap included.
func TestSkillsAreSearchable(t *testing.T) {
	var list []skills.Skill
	for i := 0; i < skills.MaxIndexEntries+5; i++ {
		n := fmt.Sprintf("s%03d", i)
		list = append(list, skills.Skill{Name: n, Description: "does " + n, WhenToUse: "when " + n, ModelInvocable: true})
	}
	list = append(list, skills.Skill{Name: "hidden", Description: "user only"})
	// The skills past the cap are found through tool_search.
	reg := tools.NewRegistry()
	reg.Register(tools.NewToolSearch(reg))
	reg.Register(New(list, nil, reg))
	ts, _ := reg.Get("tool_search")
	res, err := ts.Run(context.Background(), nil, json.RawMessage(`{"query":"s044"}`))
	if err != nil || !strings.Contains(res.Content, "skill s044: does s044") || !strings.Contains(res.Content, `skill {"name": "s044"}`) {
		t.Fatalf("tool_search: %v %q", err, res.Content)
	}
	if res, _ := ts.Run(context.Background(), nil, json.RawMessage(`{"query":"hidden"}`)); strings.Contains(res.Content, "skill hidden") {
		t.Fatalf("a skill the model may not invoke was listed: %q", res.Content)
	}
}

func TestSkillTool(t *testing.T) {
	r := skills.Roots{Project: filepath.Join(t.TempDir(), "p")}
	put(t, filepath.Join(r.Project, ".hew/skills/deploy/SKILL.md"), "---\ndescription: deploy it\n---\nDeploy $ARGUMENTS from ${HEW_SKILL_DIR}")
	put(t, filepath.Join(r.Project, ".hew/skills/forky/SKILL.md"), "---\ncontext: fork\nallowed-tools: Read\n---\nInvestigate $1")
	put(t, filepath.Join(r.Project, ".hew/skills/manual/SKILL.md"), "---\ndisable-model-invocation: true\n---\nm")
	list := skills.Discover(r)
	var forked []string
	reg := tools.NewRegistry()
	tools.RegisterBuiltins(reg)
	tool := New(list, func(_ context.Context, _ *tools.Env, s skills.Skill, prompt string) (tools.Result, error) {
		forked = append(forked, s.Name+":"+prompt)
		return tools.Result{Content: "the answer"}, nil
	}, reg)
	res, err := tool.Run(context.Background(), nil, json.RawMessage(`{"name":"deploy","arguments":"v2"}`))
	if err != nil || !strings.Contains(res.Content, "Deploy v2 from "+filepath.Join(r.Project, ".hew/skills/deploy")) || !strings.Contains(res.Content, "Follow these instructions") {
		t.Fatalf("inline: %v %q", err, res.Content)
	}
	res, err = tool.Run(context.Background(), nil, json.RawMessage(`{"name":"forky","arguments":"auth"}`))
	if err != nil || !strings.HasSuffix(res.Content, "the answer") || strings.Join(forked, "|") != "forky:Investigate auth" {
		t.Fatalf("fork: %v %q %q", err, res.Content, forked)
	}
	if !tool.ReadOnly(json.RawMessage(`{"name":"forky"}`)) || !tool.ReadOnly(json.RawMessage(`{"name":"deploy"}`)) {
		t.Error("read-only skills")
	}
	if _, err := tool.Run(context.Background(), nil, json.RawMessage(`{"name":"nope"}`)); err == nil || !strings.Contains(err.Error(), "available: deploy, forky") {
		t.Fatalf("unknown skill error: %v", err)
	}
	if _, err := tool.Run(context.Background(), nil, json.RawMessage(`{"name":"manual"}`)); err == nil || !strings.Contains(err.Error(), "for the user") {
		t.Fatalf("manual skill: %v", err)
	}
	if _, err := New(list, nil, nil).Run(context.Background(), nil, json.RawMessage(`{"name":"forky"}`)); err == nil {
		t.Fatal("fork without sub-agents should fail")
	}
}

// probe is a tool hew has never heard of that says it is read-only.
type probe struct{ ro bool }

func (probe) Name() string                    { return "probe" }
func (probe) Description() string             { return "probes" }
func (probe) Schema() json.RawMessage         { return json.RawMessage(`{"type":"object"}`) }
func (p probe) ReadOnly(json.RawMessage) bool { return p.ro }
func (probe) Run(context.Context, *tools.Env, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, nil
}

// Whether a fork skill is read-only follows what its allowed tools say of
// themselves: no list of tool names decides it, so a new read-only tool
// counts as soon as it is registered, and an unknown one never does.
func TestForkSkillReadOnlyByItsTools(t *testing.T) {
	fork := func(name string, allowed ...string) skills.Skill {
		return skills.Skill{Name: name, Context: "fork", AllowedTools: allowed, ModelInvocable: true, Body: "x"}
	}
	list := []skills.Skill{
		fork("reads", "read_file", "grep_search(src/**)", "tool_search"),
		fork("shell", "read_file", "run_shell(git log:*)"),
		fork("probes", "probe"),
		fork("unknown", "no_such_tool"),
		fork("everything"),
	}
	for _, ro := range []bool{true, false} {
		reg := tools.NewRegistry()
		tools.RegisterBuiltins(reg)
		reg.Register(probe{ro: ro})
		tool := New(list, nil, reg)
		want := map[string]bool{"reads": true, "shell": false, "probes": ro, "unknown": false, "everything": false}
		for name, w := range want {
			if got := tool.ReadOnly(json.RawMessage(`{"name":"` + name + `"}`)); got != w {
				t.Errorf("probe read-only %v: skill %s ReadOnly = %v, want %v", ro, name, got, w)
			}
		}
	}
	if New(list, nil, nil).ReadOnly(json.RawMessage(`{"name":"reads"}`)) {
		t.Error("without a registry a fork skill counted as read-only")
	}
}
