// Package skills discovers SKILL.md files: Markdown workflows the model loads
// on demand with the skill tool (or the user runs as /NAME). Only names and
// descriptions go into the prompt; a skill's body costs tokens only when used.
package skills

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Skill is one discovered skill.
type Skill struct {
	Name        string
	Description string
	// Path is the SKILL.md file; Dir its directory.
	Path, Dir string
	// Source is "project" or "user".
	Source string
	// UserInvocable reports whether /NAME runs it from the REPL (default true).
	UserInvocable bool
	// Body is the Markdown after the frontmatter.
	Body string
	// Warning notes a frontmatter problem that was worked around.
	Warning string
}

// Roots says where to look.
type Roots struct {
	Project string // project root
	Home    string // user's home (~/.claude/skills)
	HewHome string // $HEW_HOME (skills/)
}

// Discover finds all skills. Project skills override user skills of the
// same name; within a level, .hew wins over .claude.
func Discover(r Roots) []Skill {
	type place struct{ dir, source string }
	var places []place
	// Lowest precedence first; later entries override.
	if r.Home != "" {
		places = append(places, place{filepath.Join(r.Home, ".claude", "skills"), "user"})
	}
	if r.HewHome != "" {
		places = append(places, place{filepath.Join(r.HewHome, "skills"), "user"})
	}
	if r.Project != "" {
		places = append(places,
			place{filepath.Join(r.Project, ".claude", "skills"), "project"},
			place{filepath.Join(r.Project, ".hew", "skills"), "project"})
	}
	byName := map[string]Skill{}
	for _, p := range places {
		entries, err := os.ReadDir(p.dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			path := filepath.Join(p.dir, e.Name(), "SKILL.md")
			s, err := Load(path)
			if err != nil {
				continue
			}
			s.Source = p.source
			byName[s.Name] = s
		}
	}
	out := make([]Skill, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Load reads one SKILL.md. The directory name is the default name.
func Load(path string) (Skill, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, fmt.Errorf("skill: %w", err)
	}
	s := Skill{Path: path, Dir: filepath.Dir(path), Name: filepath.Base(filepath.Dir(path)), UserInvocable: true}
	front, body := splitFrontmatter(data)
	s.Body = strings.TrimSpace(string(body))
	if front != nil {
		fields, warn := parseFrontmatter(front)
		s.Warning = warn
		if v := fields["name"]; v != "" {
			s.Name = v
		}
		s.Description = fields["description"]
		if v := strings.ToLower(fields["user-invocable"]); v == "false" || v == "no" {
			s.UserInvocable = false
		}
	}
	if s.Description == "" {
		s.Description = firstLine(s.Body)
	}
	return s, nil
}

func splitFrontmatter(data []byte) (front, body []byte) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !bytes.HasPrefix(data, []byte("---")) {
		return nil, data
	}
	rest := data[3:]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 || strings.TrimSpace(string(rest[:nl])) != "" {
		return nil, data
	}
	rest = rest[nl+1:]
	for off := 0; off < len(rest); {
		end := bytes.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if end >= 0 {
			line = rest[off : off+end]
		}
		if strings.TrimSpace(string(line)) == "---" {
			if end < 0 {
				return rest[:off], nil
			}
			return rest[:off], rest[off+end+1:]
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return nil, data // unterminated: treat it all as body
}

// parseFrontmatter reads YAML; when the YAML is invalid (unquoted colons are
// common in descriptions) it falls back to one "key: value" per line.
func parseFrontmatter(front []byte) (map[string]string, string) {
	out := map[string]string{}
	var m map[string]any
	if err := yaml.Unmarshal(front, &m); err == nil {
		for k, v := range m {
			out[strings.ToLower(k)] = strings.TrimSpace(fmt.Sprint(v))
		}
		return out, ""
	} else {
		for _, line := range strings.Split(string(front), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok || strings.HasPrefix(line, " ") {
				continue
			}
			out[strings.ToLower(strings.TrimSpace(k))] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
		return out, "frontmatter is not valid YAML (" + err.Error() + "); read it line by line"
	}
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(l, "# "))
		if l != "" {
			return l
		}
	}
	return ""
}

// Expand substitutes the arguments and the skill directory into the body.
func (s Skill) Expand(arguments string) string {
	r := strings.NewReplacer(
		"${ARGUMENTS}", arguments, "$ARGUMENTS", arguments,
		"${CLAUDE_SKILL_DIR}", s.Dir, "${HEW_SKILL_DIR}", s.Dir,
	)
	body := r.Replace(s.Body)
	if arguments != "" && !strings.Contains(s.Body, "ARGUMENTS") {
		body += "\n\nARGUMENTS: " + arguments
	}
	return body
}

// Index is the one-line-per-skill list for the system prompt.
func Index(list []Skill) string {
	var b strings.Builder
	for _, s := range list {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, s.Description)
	}
	return b.String()
}
