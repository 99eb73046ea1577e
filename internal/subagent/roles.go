package subagent

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hew-dev/hew/internal/frontmatter"
	"github.com/hew-dev/hew/internal/permission"
)

// Role is a kind of sub-agent: which tools it gets, in which permission
// mode it decides calls, what it is told, and what its answer must hold.
type Role struct {
	Name, Description string
	// Tools are rules (TOOL or TOOL(PATTERN)) bounding what the child may
	// call; nil means every tool of the parent but those only the main
	// agent has (tools.MainAgentOnly).
	Tools []string
	// Explorers, when set instead of Tools, bounds the child to the
	// parent's tools that declare tools.Explorer (the read-only roles).
	Explorers bool
	// ReadOnlyShell makes the child decide calls in plan mode, where the
	// permission engine allows only read-only shell commands and no edits.
	ReadOnlyShell bool
	// Model, when set, replaces the parent's model.
	Model string
	// MaxTurns, when set, replaces Options.MaxTurns.
	MaxTurns int
	// MaxTokens, when set, bounds the child's tokens (within what is left
	// of the parent's budget).
	MaxTokens int
	// Prompt is the role's instructions, added to the child's system prompt.
	Prompt string
	// Require names what the final answer must contain; the child is asked
	// once to add it when it is missing.
	Require func(answer string) (missing string)
	// Source is "built-in" or the file the role came from.
	Source string
}

// builtinRoles are the roles every session has.
func builtinRoles() map[string]Role {
	return map[string]Role{
		TypeGeneral: {Name: TypeGeneral, Source: "built-in",
			Description: "every tool except agent: edits files and runs commands under your permissions",
			Prompt:      "You may use every tool you were given, under the same permission rules as the main agent."},
		TypeExplore: {Name: TypeExplore, Source: "built-in", Explorers: true, ReadOnlyShell: true,
			Description: "read-only: reads, lists and searches files, runs read-only shell commands",
			Prompt:      "You are read-only: find and read what the task asks for. File changes and commands that change anything are refused; do not try them."},
		TypePlan: {Name: TypePlan, Source: "built-in", Explorers: true, ReadOnlyShell: true, Require: needCriticalFiles,
			Description: `read-only like explore; designs an approach and ends with a "Critical files" section`,
			Prompt: "You are read-only: investigate the code and design the approach. File changes and commands that change anything are refused.\n" +
				"Your report is a concrete plan: the goal, the changes file by file, ordered steps, how to verify, open risks. " +
				"It must end with a section headed \"## Critical files\" listing the 3-7 files most important to the change, one per line as `path` - why."},
		TypeVerify: {Name: TypeVerify, Source: "built-in", Explorers: true, Require: needVerdict,
			Description: "checks finished work adversarially: reads, runs tests, ends with VERDICT: PASS|FAIL|PARTIAL",
			Prompt: "You are the verifier. Your job is to try to break the work you are told about, not to confirm it: assume it is wrong until you have seen it work. " +
				"Read the changed code, run the tests and the commands that exercise it, try edge cases and inputs the author may have missed. You cannot edit files; do not fix anything, report it.\n" +
				"End your report with the commands you ran, each with what it printed (shortened), then a last line that is exactly one of:\n" +
				"VERDICT: PASS\nVERDICT: FAIL\nVERDICT: PARTIAL\n" +
				"PASS only when you ran checks and they showed the work correct; FAIL when something is broken (say what); PARTIAL when some of it works or you could not check all of it."},
	}
}

// Verdicts of the verify role.
const (
	VerdictPass    = "PASS"
	VerdictFail    = "FAIL"
	VerdictPartial = "PARTIAL"
)

var verdictRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[\s>*_#-]*VERDICT:\s*\**\s*(PASS|FAIL|PARTIAL)\b`)
})

// ParseVerdict finds the last "VERDICT: PASS|FAIL|PARTIAL" line of a
// verify agent's answer; "" when there is none.
func ParseVerdict(answer string) string {
	m := verdictRE().FindAllStringSubmatch(answer, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

func needVerdict(answer string) string {
	if ParseVerdict(answer) != "" {
		return ""
	}
	return "a last line VERDICT: PASS, VERDICT: FAIL or VERDICT: PARTIAL (with the commands you ran and what they printed before it)"
}

var criticalRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?im)^\s*(#+\s*|\*\*)?critical files\b`) })

func needCriticalFiles(answer string) string {
	if criticalRE().MatchString(answer) {
		return ""
	}
	return `a section headed "## Critical files" listing the files most important to the change`
}

// LoadRoles reads user-defined roles: one Markdown file per role in each
// directory (lowest precedence first; later ones override the same name),
// with frontmatter name, description, tools, model, max-turns and the
// role's instructions as the body. Built-in roles cannot be replaced. A
// file that cannot be used is returned as a problem, and the rest load.
func LoadRoles(dirs ...string) (map[string]Role, []string) {
	roles := map[string]Role{}
	var problems []string
	builtins := builtinRoles()
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			r, err := loadRole(path)
			if err != nil {
				problems = append(problems, fmt.Sprintf("agent role %s: %v", path, err))
				continue
			}
			if _, ok := builtins[r.Name]; ok {
				problems = append(problems, fmt.Sprintf("agent role %s: %q is a built-in role and cannot be replaced; rename it", path, r.Name))
				continue
			}
			roles[r.Name] = r
		}
	}
	return roles, problems
}

var roleNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

func loadRole(path string) (Role, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Role{}, err
	}
	front, body, err := frontmatter.Split(data)
	if err != nil {
		return Role{}, err
	}
	f := frontmatter.Parse(front)
	r := Role{Name: strings.TrimSuffix(filepath.Base(path), ".md"), Source: path,
		Prompt: strings.TrimSpace(string(body)), Description: strings.Join(strings.Fields(f["description"].Text), " "),
		Model: strings.TrimSpace(f["model"].Text)}
	if n := strings.TrimSpace(f["name"].Text); n != "" {
		r.Name = n
	}
	if !roleNameRE().MatchString(r.Name) {
		return Role{}, fmt.Errorf("name %q: use letters, digits, '-', '_' or '.'", r.Name)
	}
	if r.Model == "inherit" {
		r.Model = ""
	}
	if r.Prompt == "" {
		return Role{}, fmt.Errorf("no instructions: the body after the frontmatter is empty")
	}
	if r.Description == "" {
		return Role{}, fmt.Errorf("no description: the main agent picks roles by their description")
	}
	if t, ok := f["tools"]; ok && strings.TrimSpace(t.Text) != "" && strings.TrimSpace(t.Text) != "*" {
		items := t.List
		if items == nil {
			items = []string{t.Text}
		}
		rules, warns := permission.ParseToolList(items)
		if len(warns) > 0 {
			return Role{}, fmt.Errorf("tools: %s", strings.Join(warns, "; "))
		}
		r.Tools = append([]string{}, rules...)
	}
	if mt := strings.TrimSpace(firstText(f, "max-turns", "max_turns", "maxTurns")); mt != "" {
		n, err := strconv.Atoi(mt)
		if err != nil || n < 1 || n > 500 {
			return Role{}, fmt.Errorf("max-turns: %q is not a number from 1 to 500", mt)
		}
		r.MaxTurns = n
	}
	if mt := strings.TrimSpace(firstText(f, "max-tokens", "max_tokens", "maxTokens")); mt != "" {
		n, err := strconv.Atoi(mt)
		if err != nil || n < 1 {
			return Role{}, fmt.Errorf("max-tokens: %q is not a positive number", mt)
		}
		r.MaxTokens = n
	}
	return r, nil
}

func firstText(f map[string]frontmatter.Field, keys ...string) string {
	for _, k := range keys {
		if v, ok := f[k]; ok {
			return v.Text
		}
	}
	return ""
}

// roleNames lists role names, sorted.
func roleNames(roles map[string]Role) []string {
	out := make([]string, 0, len(roles))
	for k := range roles {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
