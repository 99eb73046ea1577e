package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hew-dev/hew/internal/fsutil"

	udiff "github.com/aymanbagabas/go-udiff"
)

// WriteFile is the write_file tool.
type WriteFile struct{ Spec }

var writeFileSpec = builtin("write_file", `{
 "type": "object",
 "properties": {
  "file_path": {"type": "string", "description": "Path of the file, absolute or relative to the project root"},
  "content": {"type": "string", "description": "The complete content to write"}
 },
 "required": ["file_path", "content"],
 "additionalProperties": false
}`)

type writeFileInput struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

// ReadOnly implements Tool.
func (WriteFile) ReadOnly(json.RawMessage) bool { return false }

// Touches implements FileToucher: the file written.
func (WriteFile) Touches(input json.RawMessage) (string, bool) {
	return Field(input, "file_path"), true
}

// Check refuses an empty path or one outside the allowed directories.
func (t WriteFile) Check(env *Env, input json.RawMessage) error {
	in, err := decode[writeFileInput](input)
	if err != nil {
		return err
	}
	if strings.TrimSpace(in.FilePath) == "" {
		return errors.New("write_file: file_path is empty; give the path of the file to write")
	}
	_, err = resolvePath(env, t, in.FilePath)
	return err
}

// Run writes the file atomically after the read-before-write guard.
func (t WriteFile) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	in, err := decode[writeFileInput](input)
	if err != nil {
		return Result{}, err
	}
	abs, err := resolvePath(env, t, in.FilePath)
	if err != nil {
		return Result{}, err
	}
	shown := shownPath(env, abs)
	var before []byte
	existed := false
	switch fi, err := os.Stat(abs); {
	case err == nil && fi.IsDir():
		return Result{}, fmt.Errorf("write_file: %s is a directory", shown)
	case err == nil:
		existed = true
		if before, err = os.ReadFile(abs); err != nil {
			return Result{}, fmt.Errorf("write_file: %w", err)
		}
		if err := checkFresh(env, "write_file", abs, shown, before); err != nil {
			return Result{}, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return Result{}, fmt.Errorf("write_file: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := fsutil.WriteFileAtomic(abs, []byte(in.Content), 0o644); err != nil {
		return Result{}, fmt.Errorf("write_file: %w", err)
	}
	recordWrite(env, abs, []byte(in.Content))
	diff := unifiedDiff(shown, string(before), in.Content)
	lines := strings.Count(in.Content, "\n")
	if in.Content != "" && !strings.HasSuffix(in.Content, "\n") {
		lines++
	}
	var msg string
	if existed {
		add, del := diffStat(diff)
		if string(before) == in.Content {
			msg = fmt.Sprintf("%s unchanged (content identical)", shown)
		} else {
			msg = fmt.Sprintf("Overwrote %s: %d lines (%d bytes), +%d -%d lines", shown, lines, len(in.Content), add, del)
		}
	} else {
		msg = fmt.Sprintf("Created %s: %d lines (%d bytes)", shown, lines, len(in.Content))
	}
	return Result{Content: msg, Display: diff}, nil
}

// recordWrite stores the receipt of content just written, so the model can
// keep editing its own writes without re-reading.
func recordWrite(env *Env, abs string, content []byte) {
	if env == nil || env.Reads == nil {
		return
	}
	if fi, err := os.Stat(abs); err == nil {
		env.Reads.Record(abs, receiptOf(fi, content))
	}
}

// Summary implements Summarizer: the file written.
func (WriteFile) Summary(input json.RawMessage) string { return Field(input, "file_path") }

// Subject implements Subjecter: the file.
func (WriteFile) Subject(input json.RawMessage) string { return Field(input, "file_path") }

// Preview implements Previewer: the file's change as a unified diff (from
// its current content, when it exists and is at most 1 MiB).
func (WriteFile) Preview(env *Env, input json.RawMessage) string {
	path, content := Field(input, "file_path"), Field(input, "content")
	if path == "" {
		return ""
	}
	abs := path
	if env != nil && !filepath.IsAbs(abs) {
		abs = filepath.Join(env.Root, abs)
	}
	var old string
	if b, err := os.ReadFile(abs); err == nil && len(b) <= 1<<20 {
		old = string(b)
	}
	return udiff.Unified(path, path, old, withNL(content))
}
