package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// Grep limits.
const (
	GrepDefaultHeadLimit = 250
	GrepMaxLineChars     = 500
)

// GrepTimeout bounds one search; a variable so tests can shorten it.
var GrepTimeout = 30 * time.Second

// GrepBackend selects the search engine: "auto" (ripgrep when on PATH),
// "rg" or "builtin". A variable so tests and benchmarks can pin one.
var GrepBackend = "auto"

// GrepSearch is the grep_search tool.
type GrepSearch struct{ Spec }

var grepSearchSpec = builtin("grep_search", `{
 "type": "object",
 "properties": {
  "pattern": {"type": "string", "minLength": 1, "description": "Regular expression to search for"},
  "path": {"type": "string", "description": "File or directory to search (default: the project root)"},
  "glob": {"type": "string", "description": "Only search files matching this glob, e.g. *.go or src/**/*.ts"},
  "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"], "description": "content: matching lines; files_with_matches: paths (default); count: matches per file"},
  "-i": {"type": "boolean", "description": "Case-insensitive search"},
  "-A": {"type": "integer", "minimum": 0, "description": "Lines of context after each match (content mode)"},
  "-B": {"type": "integer", "minimum": 0, "description": "Lines of context before each match (content mode)"},
  "-C": {"type": "integer", "minimum": 0, "description": "Lines of context before and after each match (content mode)"},
  "context": {"type": "integer", "minimum": 0, "description": "Same as -C"},
  "type": {"type": "string", "description": "File type to search, e.g. go, py, js, ts, rust, java, md"},
  "head_limit": {"type": "integer", "minimum": 1, "description": "Maximum number of entries to return (default 250)"}
 },
 "required": ["pattern"],
 "additionalProperties": false
}`)

type grepInput struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	OutputMode string `json:"output_mode"`
	IgnoreCase bool   `json:"-i"`
	After      int    `json:"-A"`
	Before     int    `json:"-B"`
	Around     int    `json:"-C"`
	Context    int    `json:"context"`
	Type       string `json:"type"`
	HeadLimit  int    `json:"head_limit"`
}

// ReadOnly implements Tool.
func (GrepSearch) ReadOnly(json.RawMessage) bool { return true }

// Explores implements Explorer.
func (GrepSearch) Explores() bool { return true }

// Refetch implements Refetchable: the same search.
func (GrepSearch) Refetch(input json.RawMessage) Refetch {
	return Refetch{What: "grep_search " + strings.TrimSpace(Field(input, "pattern")+" "+Field(input, "path"))}
}

// Check compiles the pattern and keeps the path inside the root.
func (t GrepSearch) Check(env *Env, input json.RawMessage) error {
	in, err := decode[grepInput](input)
	if err != nil {
		return err
	}
	if _, err := compileGrep(in); err != nil {
		return err
	}
	if in.Type != "" && GrepBackend == "builtin" {
		if _, ok := typeExts[in.Type]; !ok {
			return fmt.Errorf("grep_search: unknown type %q; use glob instead (e.g. glob=\"*.ext\")", in.Type)
		}
	}
	_, err = resolvePath(env, t, orDot(in.Path))
	return err
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

func compileGrep(in grepInput) (*regexp.Regexp, error) {
	p := in.Pattern
	if in.IgnoreCase {
		p = "(?i)" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("grep_search: invalid regular expression %q: %v", in.Pattern, err)
	}
	return re, nil
}

// grepQuery is a normalized search request shared by both engines.
type grepQuery struct {
	in            grepInput
	mode          string
	before, after int
	base          string // absolute file or directory
}

// grepLine is one output line of a file (a match or context).
type grepLine struct {
	num   int
	text  string
	match bool
}

// grepFile is everything found in one file.
type grepFile struct {
	abs   string
	count int
	lines []grepLine
	mtime time.Time
}

// Run searches and formats the results.
func (t GrepSearch) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	in, err := decode[grepInput](input)
	if err != nil {
		return Result{}, err
	}
	base, err := resolvePath(env, t, orDot(in.Path))
	if err != nil {
		return Result{}, err
	}
	if _, err := os.Stat(base); err != nil {
		return Result{}, fmt.Errorf("grep_search: %s: %w", shownPath(env, base), err)
	}
	q := grepQuery{in: in, mode: in.OutputMode, base: base}
	if q.mode == "" {
		q.mode = "files_with_matches"
	}
	c := max(in.Around, in.Context)
	q.before, q.after = max(in.Before, c), max(in.After, c)
	ctx, cancel := context.WithTimeout(ctx, GrepTimeout)
	defer cancel()
	var files []grepFile
	engine := "built-in"
	if rg := ripgrepPath(); rg != "" {
		engine = "ripgrep"
		files, err = searchRipgrep(ctx, rg, q)
	} else {
		var re *regexp.Regexp
		if re, err = compileGrep(in); err != nil {
			return Result{}, err
		}
		if in.Type != "" {
			if _, ok := typeExts[in.Type]; !ok {
				return Result{}, fmt.Errorf("grep_search: unknown type %q; use glob instead (e.g. glob=\"*.ext\")", in.Type)
			}
		}
		files, err = searchBuiltin(ctx, re, q)
	}
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
	if err != nil && !timedOut && !errors.Is(err, context.Canceled) {
		return Result{}, fmt.Errorf("grep_search (%s): %w", engine, err)
	}
	if ctx.Err() != nil && !timedOut {
		return Result{}, fmt.Errorf("grep_search: %w", ctx.Err())
	}
	kept := files[:0]
	for _, f := range files {
		if !env.ReadDenied("grep_search", f.abs) {
			kept = append(kept, f)
		}
	}
	files = kept
	out := formatGrep(env, q, files)
	if timedOut {
		note := fmt.Sprintf("[search timed out after %s; results are incomplete. Narrow path, glob or type and search again]", GrepTimeout)
		if len(files) == 0 {
			return Result{Content: "Search timed out after " + GrepTimeout.String() + " before finding anything — this does not mean there are no matches. Narrow path, glob or type and search again.", IsError: true}, nil
		}
		out += "\n" + note
	}
	return Result{Content: out}, nil
}

func ripgrepPath() string {
	switch GrepBackend {
	case "builtin":
		return ""
	}
	p, err := exec.LookPath("rg")
	if err != nil {
		return ""
	}
	return p
}

// formatGrep renders results in the requested mode with head_limit.
func formatGrep(env *Env, q grepQuery, files []grepFile) string {
	if len(files) == 0 {
		return fmt.Sprintf("No matches for %q in %s.", q.in.Pattern, shownPath(env, q.base))
	}
	limit := q.in.HeadLimit
	if limit <= 0 {
		limit = GrepDefaultHeadLimit
	}
	if q.mode == "files_with_matches" {
		for i := range files {
			if fi, err := os.Stat(files[i].abs); err == nil {
				files[i].mtime = fi.ModTime()
			}
		}
		sort.Slice(files, func(i, j int) bool {
			if !files[i].mtime.Equal(files[j].mtime) {
				return files[i].mtime.After(files[j].mtime)
			}
			return files[i].abs < files[j].abs
		})
	} else {
		sort.Slice(files, func(i, j int) bool { return files[i].abs < files[j].abs })
	}
	var entries []string
	total := 0
	switch q.mode {
	case "files_with_matches":
		for _, f := range files {
			entries = append(entries, shownPath(env, f.abs))
		}
	case "count":
		for _, f := range files {
			entries = append(entries, fmt.Sprintf("%s:%d", shownPath(env, f.abs), f.count))
			total += f.count
		}
	default:
		ctxOn := q.before > 0 || q.after > 0
		for fi, f := range files {
			name := shownPath(env, f.abs)
			prev := -1
			for _, l := range f.lines {
				if ctxOn && ((prev >= 0 && l.num > prev+1) || (prev < 0 && fi > 0)) {
					entries = append(entries, "--")
				}
				sep := "-"
				if l.match {
					sep = ":"
				}
				entries = append(entries, name+sep+fmt.Sprint(l.num)+sep+cutLine(l.text))
				prev = l.num
			}
		}
	}
	var b strings.Builder
	shown := entries
	if len(shown) > limit {
		shown = shown[:limit]
	}
	b.WriteString(strings.Join(shown, "\n"))
	if n := len(entries) - len(shown); n > 0 {
		fmt.Fprintf(&b, "\n[%d more entries omitted (head_limit %d); narrow the search or raise head_limit]", n, limit)
	}
	if q.mode == "count" {
		fmt.Fprintf(&b, "\n[%d matches in %d files]", total, len(files))
	}
	return b.String()
}

func cutLine(s string) string {
	s = strings.TrimSuffix(s, "\r")
	if utf8.RuneCountInString(s) <= GrepMaxLineChars {
		return s
	}
	r := []rune(s)
	return string(r[:GrepMaxLineChars]) + fmt.Sprintf("… [%d more characters]", len(r)-GrepMaxLineChars)
}

// Summary implements Summarizer: the pattern, where and which files.
func (GrepSearch) Summary(input json.RawMessage) string {
	return joinNonEmpty(Field(input, "pattern"), inPath(Field(input, "path")), Field(input, "glob"))
}

// Subject implements Subjecter: the directory searched (what a question
// about reading outside the project is about), else the pattern.
func (GrepSearch) Subject(input json.RawMessage) string {
	if p := Field(input, "path"); p != "" {
		return p
	}
	return Field(input, "pattern")
}
