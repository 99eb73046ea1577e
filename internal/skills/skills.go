// Package skills discovers SKILL.md files: Markdown workflows the model loads
// on demand with the skill tool (or the user runs as /NAME). Only names and
// one-line descriptions go into the prompt; a skill's body costs tokens only
// when it is used. The format is the one other agents read, so existing
// skill folders work unchanged.
package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hew-dev/hew/internal/frontmatter"
)

// Context values: where a skill's prompt runs.
const (
	ContextInline = "inline" // added to the current conversation
	ContextFork   = "fork"   // run by a fresh sub-agent; only its answer returns
)

// maxSkillFile bounds a SKILL.md; anything larger is reported, not loaded.
const maxSkillFile = 256 << 10

// Skill is one discovered skill.
type Skill struct {
	Name        string
	Description string
	WhenToUse   string
	// AllowedTools are the allowed-tools entries as permission rules in
	// hew's spelling (read_file, run_shell(git status:*)); nil when unset.
	AllowedTools []string
	// Context is ContextInline or ContextFork.
	Context      string
	ArgumentHint string
	// Model, when set, is the model a fork skill's sub-agent uses.
	Model string
	// UserInvocable reports whether /NAME runs it (default true).
	UserInvocable bool
	// ModelInvocable is false with disable-model-invocation: true; such a
	// skill is left out of the prompt and refused by the skill tool.
	ModelInvocable bool
	// Path is the SKILL.md file; Dir its directory.
	Path, Dir string
	// Source is "project" or "user".
	Source string
	// Shadows lists the SKILL.md files of same-named skills this one hides.
	Shadows []string
	// Body is the Markdown after the frontmatter.
	Body string
	// Warnings note frontmatter entries that were ignored.
	Warnings []string
}

// Fork reports whether the skill runs in a sub-agent.
func (s Skill) Fork() bool { return s.Context == ContextFork }

// Problem is a SKILL.md that could not be loaded, and why.
type Problem struct {
	Path, Reason string
}

func (p Problem) String() string { return "skill " + p.Path + ": " + p.Reason }

// Catalog is the result of discovery: the usable skills sorted by name and
// the files that were skipped.
type Catalog struct {
	Skills   []Skill
	Problems []Problem
}

// Roots says where to look.
type Roots struct {
	Project string // project root
	Home    string // user's home (~/.claude/skills)
	HewHome string // $HEW_HOME (skills/)
}

// Places lists the skill directories from lowest to highest precedence,
// each with its source.
func (r Roots) Places() [][2]string {
	var out [][2]string
	if r.Home != "" {
		out = append(out, [2]string{filepath.Join(r.Home, ".claude", "skills"), "user"})
	}
	if r.HewHome != "" {
		out = append(out, [2]string{filepath.Join(r.HewHome, "skills"), "user"})
	}
	if r.Project != "" {
		out = append(out,
			[2]string{filepath.Join(r.Project, ".claude", "skills"), "project"},
			[2]string{filepath.Join(r.Project, ".hew", "skills"), "project"})
	}
	return out
}

// Discover returns the usable skills (see Scan).
func Discover(r Roots) []Skill { return Scan(r).Skills }

// Scan finds every skill. Later places override earlier ones of the same
// name (project over user; .hew over .claude), and the winner records the
// files it shadows. A broken SKILL.md becomes a Problem; the rest still load.
func Scan(r Roots) Catalog {
	var c Catalog
	byName := map[string]Skill{}
	for _, p := range r.Places() {
		entries, err := os.ReadDir(p[0])
		if err != nil {
			if !os.IsNotExist(err) {
				c.Problems = append(c.Problems, Problem{p[0], "cannot list the directory: " + err.Error()})
			}
			continue
		}
		for _, e := range entries {
			path := filepath.Join(p[0], e.Name(), "SKILL.md")
			if _, err := os.Stat(path); os.IsNotExist(err) {
				continue // a folder without SKILL.md is not a skill
			}
			s, err := Load(path)
			if err != nil {
				c.Problems = append(c.Problems, Problem{path, err.Error()})
				continue
			}
			s.Source = p[1]
			if old, ok := byName[s.Name]; ok {
				s.Shadows = append([]string{old.Path}, old.Shadows...)
			}
			byName[s.Name] = s
		}
	}
	c.Skills = make([]Skill, 0, len(byName))
	for _, s := range byName {
		c.Skills = append(c.Skills, s)
	}
	sort.Slice(c.Skills, func(i, j int) bool { return c.Skills[i].Name < c.Skills[j].Name })
	return c
}

// Load reads one SKILL.md. The directory name is the default name; the
// description defaults to the body's first line. The error says what is
// wrong in words a skill author can act on.
func Load(path string) (Skill, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Skill{}, fmt.Errorf("cannot read: %w", err)
	}
	if st.IsDir() {
		return Skill{}, fmt.Errorf("SKILL.md is a directory, not a file")
	}
	if st.Size() > maxSkillFile {
		return Skill{}, fmt.Errorf("the file is %d KiB; a skill is at most %d KiB (move long material into files beside it)", st.Size()>>10, maxSkillFile>>10)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, fmt.Errorf("cannot read: %w", err)
	}
	return parse(path, data)
}

func parse(path string, data []byte) (Skill, error) {
	s := Skill{Path: path, Dir: filepath.Dir(path), Name: filepath.Base(filepath.Dir(path)),
		UserInvocable: true, ModelInvocable: true, Context: ContextInline}
	front, body, err := frontmatter.Split(data)
	if err != nil {
		return Skill{}, err
	}
	s.Body = strings.TrimSpace(string(body))
	fields := frontmatter.Parse(front)
	if v := fields["name"].Text; v != "" {
		s.Name = v
	}
	if err := validName(s.Name); err != nil {
		return Skill{}, err
	}
	s.Description = oneLine(fields["description"].Text)
	s.WhenToUse = oneLine(firstSet(fields, "when_to_use", "when-to-use"))
	s.ArgumentHint = oneLine(firstSet(fields, "argument-hint", "argument_hint"))
	s.Model = strings.TrimSpace(fields["model"].Text)
	if s.Model == "inherit" {
		s.Model = ""
	}
	switch c := strings.ToLower(strings.TrimSpace(fields["context"].Text)); c {
	case "", ContextInline:
	case ContextFork:
		s.Context = ContextFork
	default:
		return Skill{}, fmt.Errorf("context: %q is neither inline nor fork", c)
	}
	for _, k := range []string{"user-invocable", "disable-model-invocation"} {
		f, ok := fields[k]
		if !ok || f.Text == "" {
			continue
		}
		v, ok := frontmatter.Bool(f.Text)
		if !ok {
			return Skill{}, fmt.Errorf("%s: %q is not true or false", k, f.Text)
		}
		if k == "user-invocable" {
			s.UserInvocable = v
		} else {
			s.ModelInvocable = !v
		}
	}
	if f, ok := fields["allowed-tools"]; ok {
		s.AllowedTools, s.Warnings = parseAllowedTools(f)
		if s.AllowedTools == nil {
			s.AllowedTools = []string{}
		}
	}
	if s.Body == "" {
		return Skill{}, fmt.Errorf("no instructions: the body after the frontmatter is empty")
	}
	if s.Description == "" {
		s.Description = oneLine(firstLine(s.Body))
	}
	return s, nil
}

func firstSet(fields map[string]frontmatter.Field, keys ...string) string {
	for _, k := range keys {
		if f, ok := fields[k]; ok {
			return f.Text
		}
	}
	return ""
}

// validName keeps /NAME typeable and the name safe in a prompt line.
func validName(n string) error {
	if n == "" || len(n) > 64 {
		return fmt.Errorf("name %q: a skill name has 1 to 64 characters", n)
	}
	for i, r := range n {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == ':' || (r == '-' && i > 0)
		if !ok {
			return fmt.Errorf("name %q: use letters, digits, '-', '_', '.' or ':' (it is typed as /NAME)", n)
		}
	}
	return nil
}

// oneLine collapses whitespace so a value fits one prompt line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(l, "# "))
		if l != "" {
			return l
		}
	}
	return ""
}
