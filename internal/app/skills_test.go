package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/session"
)

// skillProject makes a project with skills and a scenario; it returns the
// environment for runMain, the project root and $HEW_HOME.
func skillProject(t *testing.T, scenario string, skills map[string]string) ([]string, string, string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	root, _ := filepath.EvalSymlinks(dir)
	for name, body := range skills {
		p := filepath.Join(root, ".hew", "skills", name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	script := filepath.Join(t.TempDir(), "scenario.json")
	if err := os.WriteFile(script, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"HEW_HOME=" + home, "HOME=" + t.TempDir(), "HEW_MOCK_SCRIPT=" + script}, root, home
}

// onlySession loads the one session of root.
func onlySession(t *testing.T, home, root string) *session.Loaded {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(session.Dir(home, root), "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v", files)
	}
	s, err := session.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func userTexts(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == llm.RoleUser && m.Text() != "" {
			out = append(out, m.Text())
		}
	}
	return out
}

const greetSkill = "---\ndescription: greets someone\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS (first word: $1) using ${HEW_SKILL_DIR}/names.txt."

// TestHeadlessSlashSkill: `hew -p '/greet Bob'` sends the skill's body with
// the arguments, not the literal text.
func TestHeadlessSlashSkill(t *testing.T) {
	env, root, home := skillProject(t, `{"turns":[{"text":"Hello Bob!"}]}`, map[string]string{"greet": greetSkill})
	code, out, errOut := runMain(t, env, "--mock", "-p", "/greet Bob")
	if code != 0 || !strings.Contains(out, "Hello Bob!") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	texts := userTexts(onlySession(t, home, root).Messages)
	if len(texts) != 1 {
		t.Fatalf("user messages: %q", texts)
	}
	want := "Say hello to Bob (first word: Bob) using " + filepath.Join(root, ".hew/skills/greet") + "/names.txt."
	if !strings.Contains(texts[0], want) || strings.Contains(texts[0], "/greet Bob") {
		t.Errorf("the model got %q, want the expanded body %q", texts[0], want)
	}
	// Text that only looks like a command goes as typed.
	env, root, home = skillProject(t, `{"turns":[{"text":"ok"}]}`, map[string]string{"greet": greetSkill})
	if code, _, errOut := runMain(t, env, "--mock", "-p", "/nosuch thing"); code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	if texts := userTexts(onlySession(t, home, root).Messages); len(texts) != 1 || !strings.Contains(texts[0], "/nosuch thing") {
		t.Errorf("user messages: %q", texts)
	}
}

// TestModelCallsSkillTool: the skill tool's result is the expanded prompt.
func TestModelCallsSkillTool(t *testing.T) {
	env, root, home := skillProject(t, `{"turns":[
	  {"tool_calls":[{"name":"skill","input":{"name":"greet","arguments":"Ann Lee"}}]},
	  {"text":"Greeted."}]}`, map[string]string{"greet": greetSkill, "other": "---\ndescription: x: y\n---\nbody"})
	code, out, errOut := runMain(t, env, "--mock", "-p", "greet Ann")
	if code != 0 || !strings.Contains(out, "Greeted.") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var result string
	for _, m := range onlySession(t, home, root).Messages {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				result = b.Content
			}
		}
	}
	if !strings.Contains(result, "Say hello to Ann Lee (first word: Ann)") || !strings.Contains(result, "Follow these instructions") {
		t.Errorf("skill tool result = %q", result)
	}
}

// TestForkSkillCannotWriteOutsideAllowedTools: a fork skill whose
// allowed-tools leave out write_file runs in a sub-agent that cannot write;
// the main conversation gets only the sub-agent's answer.
func TestForkSkillCannotWriteOutsideAllowedTools(t *testing.T) {
	env, root, home := skillProject(t, `{"turns":[
	  {"text":"Writing.","tool_calls":[{"name":"write_file","input":{"file_path":"notes.txt","content":"x"}}]},
	  {"text":"I could not write notes.txt: no write tool."},
	  {"text":"The skill reports it could not write."}]}`,
		map[string]string{"scribe": "---\ndescription: takes notes\ncontext: fork\nallowed-tools: Read, Grep\n---\nWrite $ARGUMENTS into notes.txt."})
	code, out, errOut := runMain(t, env, "--mock", "-p", "--yolo", "--output-format", "json", "/scribe the plan")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(root, "notes.txt")); err == nil {
		t.Fatal("the fork skill wrote a file its allowed-tools exclude")
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || res["result"] != "The skill reports it could not write." {
		t.Fatalf("result %v (%v)", res, err)
	}
	s := onlySession(t, home, root)
	texts := userTexts(s.Messages)
	if len(texts) != 1 || !strings.Contains(texts[0], "I could not write notes.txt") || strings.Contains(texts[0], "Write the plan into") {
		t.Errorf("main conversation got %q", texts)
	}
	for _, m := range s.Messages {
		if len(m.ToolUses()) > 0 {
			t.Errorf("the sub-agent's tool calls leaked into the main history: %+v", m)
		}
	}
	// The sub-agent's transcript is a sidechain beside the session.
	files, _ := filepath.Glob(filepath.Join(session.Dir(home, root), "*.jsonl"))
	side := session.Sidechains(files[0])
	if len(side) != 1 {
		t.Fatalf("sidechains: %+v", side)
	}
	sc, err := session.Load(side[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	var refused string
	for _, m := range sc.Messages {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				refused = b.Content
			}
		}
	}
	if !strings.Contains(refused, "write_file") {
		t.Errorf("the sidechain should show the refused write: %q", refused)
	}
	code, shown, _ := runMain(t, env, "sessions", "show", side[0].ID)
	if code != 0 || !strings.Contains(shown, "sub-agent transcript of session") || !strings.Contains(shown, "write_file") {
		t.Errorf("sessions show sidechain: %d\n%s", code, shown)
	}
	code, shown, _ = runMain(t, env, "sessions", "show", s.Meta.ID)
	if code != 0 || !strings.Contains(shown, side[0].ID) {
		t.Errorf("sessions show parent should list the sidechain: %d\n%s", code, shown)
	}
}

func TestBrokenSkillReportedOnce(t *testing.T) {
	env, _, _ := skillProject(t, `{"turns":[{"text":"fine"}]}`, map[string]string{
		"greet": greetSkill, "broken": "---\ncontext: sideways\n---\nbody"})
	code, out, errOut := runMain(t, env, "--mock", "-p", "/greet Zoe")
	if code != 0 || !strings.Contains(out, "fine") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if n := strings.Count(errOut, "broken/SKILL.md"); n != 1 || !strings.Contains(errOut, "neither inline nor fork") {
		t.Errorf("stderr should name the broken skill once with its reason:\n%s", errOut)
	}
	code, out, _ = runMain(t, env, "skills", "list")
	if code != 0 || !strings.Contains(out, "greet (project, inline)  /greet NAME") || !strings.Contains(out, "not loaded:") {
		t.Errorf("skills list:\n%s", out)
	}
}
