package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

type toolSearch struct {
	Spec
	r *Registry
}

var toolSearchSpec = builtin("tool_search", `{
 "type": "object",
 "properties": {
  "query": {"type": "string", "minLength": 1, "description": "select:NAME[,NAME] to load tools, or words to search tool names and descriptions"}
 },
 "required": ["query"],
 "additionalProperties": false
}`)

// NewToolSearch returns the tool_search tool bound to r, whose deferred
// tools it searches and activates.
func NewToolSearch(r *Registry) Tool { return &toolSearch{Spec: toolSearchSpec, r: r} }

type toolSearchInput struct {
	Query string `json:"query"`
}

// ReadOnly implements Tool.
func (*toolSearch) ReadOnly(json.RawMessage) bool { return true }

// Rebind implements RegistryBound: a copy that searches and loads in r.
func (*toolSearch) Rebind(r *Registry) Tool { return NewToolSearch(r) }

// Explores implements Explorer.
func (*toolSearch) Explores() bool { return true }

// SessionOnly implements SessionOnly: it loads the session's deferred tools.
func (*toolSearch) SessionOnly() bool { return true }

// Check refuses an empty query.
func (*toolSearch) Check(_ *Env, input json.RawMessage) error {
	in, err := decode[toolSearchInput](input)
	if err != nil {
		return err
	}
	if strings.TrimSpace(in.Query) == "" || strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(in.Query), "select:")) == "" {
		return errors.New("tool_search: query is empty; give select:NAME or words to search for")
	}
	return nil
}

// Run activates selected tools or lists matching deferred ones.
func (t *toolSearch) Run(_ context.Context, _ *Env, input json.RawMessage) (Result, error) {
	in, err := decode[toolSearchInput](input)
	if err != nil {
		return Result{}, err
	}
	q := strings.TrimSpace(in.Query)
	if rest, ok := strings.CutPrefix(q, "select:"); ok {
		return t.selectTools(rest)
	}
	return t.search(q), nil
}

func (t *toolSearch) selectTools(list string) (Result, error) {
	var loaded, unknown []string
	var b strings.Builder
	native := t.r.LoadsNatively() // the definitions reach the model by reference
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		tool, ok := t.r.Get(name)
		if !ok || !t.r.Activate(name) {
			unknown = append(unknown, name)
			continue
		}
		loaded = append(loaded, name)
		if native {
			continue
		}
		spec, _ := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}{name, tool.Description(), tool.Schema()})
		b.WriteString("<function>")
		b.Write(spec)
		b.WriteString("</function>\n")
	}
	if len(loaded) == 0 {
		return Result{}, fmt.Errorf("tool_search: no tool named %s; search with words first to find the exact name", strings.Join(quoteAll(unknown), ", "))
	}
	them := "them"
	if len(loaded) == 1 {
		them = "it"
	}
	head := fmt.Sprintf("Loaded %s; you can call %s now.\n", strings.Join(loaded, ", "), them)
	if len(unknown) > 0 {
		head += fmt.Sprintf("Not found: %s.\n", strings.Join(quoteAll(unknown), ", "))
	}
	return Result{Content: strings.TrimSuffix(head+b.String(), "\n"), Loads: loaded}, nil
}

func (t *toolSearch) search(q string) Result {
	terms := strings.Fields(strings.ToLower(q))
	type hit struct {
		name, line string
		score      int
	}
	var hits []hit
	deferred := t.r.Deferred()
	for _, tool := range deferred {
		name := strings.ToLower(tool.Name())
		desc := strings.ToLower(tool.Description())
		score := 0
		for _, term := range terms {
			if strings.Contains(name, term) {
				score += 3
			}
			if strings.Contains(desc, term) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{tool.Name(), firstLine(tool.Description()), score})
		}
	}
	for _, tool := range t.r.All() {
		src, ok := tool.(Searchable)
		if !ok || !t.r.Visible(tool.Name()) {
			continue
		}
		for _, e := range src.SearchEntries() {
			name, text := strings.ToLower(e.Name), strings.ToLower(e.Text)
			score := 0
			for _, term := range terms {
				if strings.Contains(name, term) {
					score += 3
				}
				if strings.Contains(text, term) {
					score++
				}
			}
			if score > 0 {
				hits = append(hits, hit{e.Kind + " " + e.Name, e.Line, score})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	if len(hits) == 0 {
		names := make([]string, len(deferred))
		for i, d := range deferred {
			names[i] = d.Name()
		}
		msg := fmt.Sprintf("No deferred tool matches %q.", q)
		if len(names) > 0 {
			msg += " Deferred tools: " + strings.Join(names, ", ") + "."
		}
		return Result{Content: msg}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d matching tool(s); load one with select:NAME:\n", len(hits))
	for i, h := range hits {
		if i == 20 {
			fmt.Fprintf(&b, "… %d more\n", len(hits)-20)
			break
		}
		fmt.Fprintf(&b, "- %s: %s\n", h.name, h.line)
	}
	return Result{Content: strings.TrimSuffix(b.String(), "\n")}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return shorten(s, 160)
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// Summary implements Summarizer: the query.
func (*toolSearch) Summary(input json.RawMessage) string { return Field(input, "query") }

// Subject implements Subjecter: the whole call (it never asks unless a
// rule says so).
func (*toolSearch) Subject(input json.RawMessage) string { return string(input) }
