package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/hew-dev/hew/internal/fsutil"

	udiff "github.com/aymanbagabas/go-udiff"
)

// EditFile is the edit_file tool.
type EditFile struct{ Spec }

var editFileSpec = builtin("edit_file", `{
 "type": "object",
 "properties": {
  "file_path": {"type": "string", "description": "Path of the file, absolute or relative to the project root"},
  "old_string": {"type": "string", "description": "The exact text to replace (must match once unless replace_all)"},
  "new_string": {"type": "string", "description": "The text to put in its place"},
  "replace_all": {"type": "boolean", "description": "Replace every occurrence of old_string (default false)"}
 },
 "required": ["file_path", "old_string", "new_string"],
 "additionalProperties": false
}`)

type editFileInput struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// ReadOnly implements Tool.
func (EditFile) ReadOnly(json.RawMessage) bool { return false }

// Touches implements FileToucher: the file edited.
func (EditFile) Touches(input json.RawMessage) (string, bool) { return Field(input, "file_path"), true }

// Check refuses no-op edits, empty paths and paths outside the root.
func (t EditFile) Check(env *Env, input json.RawMessage) error {
	in, err := decode[editFileInput](input)
	if err != nil {
		return err
	}
	if strings.TrimSpace(in.FilePath) == "" {
		return errors.New("edit_file: file_path is empty; give the path of the file to edit")
	}
	if in.OldString == in.NewString {
		return errors.New("edit_file: old_string and new_string are identical, so the edit would change nothing; put the new text in new_string")
	}
	_, err = resolvePath(env, t, in.FilePath)
	return err
}

// Run applies the edit after the read-before-edit guard and returns a diff.
func (t EditFile) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	in, err := decode[editFileInput](input)
	if err != nil {
		return Result{}, err
	}
	if in.OldString == in.NewString {
		return Result{}, errors.New("edit_file: old_string and new_string are identical; nothing to change")
	}
	abs, err := resolvePath(env, t, in.FilePath)
	if err != nil {
		return Result{}, err
	}
	shown := shownPath(env, abs)
	data, err := os.ReadFile(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) && in.OldString == "":
		return createByEdit(env, abs, shown, in.NewString)
	case errors.Is(err, fs.ErrNotExist):
		return Result{}, fmt.Errorf("edit_file: %s does not exist; create it with write_file (or edit_file with an empty old_string)", shown)
	case err != nil:
		return Result{}, fmt.Errorf("edit_file: %w", err)
	}
	if in.OldString == "" {
		return Result{}, fmt.Errorf("edit_file: %s already exists and old_string is empty; give the text to replace, or use write_file to replace the whole file", shown)
	}
	if err := checkFresh(env, "edit_file", abs, shown, data); err != nil {
		return Result{}, err
	}
	before := string(data)
	out, err := applyEdit(before, in.OldString, in.NewString, in.ReplaceAll)
	if err != nil {
		var ee *EditError
		if errors.As(err, &ee) && ee.Kind == EditAlreadyApplied {
			return Result{Content: fmt.Sprintf("%s: %s", shown, ee.Msg)}, nil
		}
		return Result{}, fmt.Errorf("edit_file: %s: %w", shown, err)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := fsutil.WriteFileAtomic(abs, []byte(out.Content), 0o644); err != nil {
		return Result{}, fmt.Errorf("edit_file: %w", err)
	}
	recordWrite(env, abs, []byte(out.Content))
	diff := unifiedDiff(shown, before, out.Content)
	add, del := diffStat(diff)
	head := fmt.Sprintf("Edited %s: %d replacement(s), +%d -%d lines", shown, len(out.Regions), add, del)
	if out.Stage != "exact" {
		head += fmt.Sprintf(" (matched after ignoring %s; written in the file's style)", out.Stage)
	}
	return Result{Content: head + "\n" + compactDiff(diff), Display: diff}, nil
}

func createByEdit(env *Env, abs, shown, content string) (Result, error) {
	if err := fsutil.WriteFileAtomic(abs, []byte(content), 0o644); err != nil {
		return Result{}, fmt.Errorf("edit_file: %w", err)
	}
	recordWrite(env, abs, []byte(content))
	diff := unifiedDiff(shown, "", content)
	return Result{Content: fmt.Sprintf("Created %s (%d bytes)", shown, len(content)), Display: diff}, nil
}

// compactDiff keeps the hunks of a unified diff without the file headers
// and with at most 60 lines, for the model (the full diff goes to Display).
func compactDiff(diff string) string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
			continue
		}
		out = append(out, l)
	}
	if len(out) > 60 {
		n := len(out) - 60
		out = append(out[:60], fmt.Sprintf("… %d more diff lines", n))
	}
	return strings.Join(out, "\n")
}

// Summary implements Summarizer: the file edited.
func (EditFile) Summary(input json.RawMessage) string { return Field(input, "file_path") }

// Subject implements Subjecter: the file.
func (EditFile) Subject(input json.RawMessage) string { return Field(input, "file_path") }

// Preview implements Previewer: the replacement as a unified diff.
func (EditFile) Preview(_ *Env, input json.RawMessage) string {
	path := Field(input, "file_path")
	if path == "" {
		return ""
	}
	return udiff.Unified(path, path, withNL(Field(input, "old_string")), withNL(Field(input, "new_string")))
}

// withNL ends s with a newline, so a diff of one-line strings reads well.
func withNL(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
