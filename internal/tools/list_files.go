package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/hew-dev/hew/internal/fsutil"
)

// ListMax caps the files list_files returns.
const ListMax = 200

// ListFiles is the list_files tool.
type ListFiles struct{ Spec }

var listFilesSpec = builtin("list_files", `{
 "type": "object",
 "properties": {
  "pattern": {"type": "string", "description": "Glob pattern, e.g. **/*.go (default: all files)"},
  "path": {"type": "string", "description": "Directory to search in (default: the project root)"}
 },
 "additionalProperties": false
}`)

type listFilesInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

// ReadOnly implements Tool.
func (ListFiles) ReadOnly(json.RawMessage) bool { return true }

// Explores implements Explorer.
func (ListFiles) Explores() bool { return true }

// Refetch implements Refetchable: the same listing.
func (ListFiles) Refetch(input json.RawMessage) Refetch {
	return Refetch{What: "list_files " + strings.TrimSpace(Field(input, "pattern")+" "+Field(input, "path"))}
}

// Check validates the pattern and keeps the directory inside the root.
func (t ListFiles) Check(env *Env, input json.RawMessage) error {
	in, err := decode[listFilesInput](input)
	if err != nil {
		return err
	}
	_, _, err = t.target(env, in)
	return err
}

// target splits an absolute or directory-prefixed pattern into the
// directory to walk and the remaining pattern, and resolves the directory.
func (t ListFiles) target(env *Env, in listFilesInput) (dir, pattern string, err error) {
	pattern = strings.TrimPrefix(in.Pattern, "./")
	base := in.Path
	if pattern != "" {
		if !doublestar.ValidatePattern(strings.TrimPrefix(pattern, "/")) {
			return "", "", fmt.Errorf("list_files: invalid glob pattern %q", in.Pattern)
		}
		b, rest := doublestar.SplitPattern(pattern)
		if b != "." && b != "" {
			if strings.HasPrefix(b, "/") || base == "" {
				base = b
			} else {
				base = path.Join(base, b)
			}
			pattern = rest
		}
	}
	if base == "" {
		base = "."
	}
	dir, err = resolvePath(env, t, base)
	return dir, pattern, err
}

// Run walks the directory and lists matches newest first.
func (t ListFiles) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	in, err := decode[listFilesInput](input)
	if err != nil {
		return Result{}, err
	}
	dir, pattern, err := t.target(env, in)
	if err != nil {
		return Result{}, err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return Result{}, fmt.Errorf("list_files: %s: %w", shownPath(env, dir), err)
	}
	if !fi.IsDir() {
		return Result{}, fmt.Errorf("list_files: %s is a file, not a directory", shownPath(env, dir))
	}
	files, err := fsutil.Glob(ctx, dir, pattern)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return Result{}, fmt.Errorf("list_files: %w", err)
	}
	interrupted := err != nil
	kept := files[:0]
	for _, f := range files {
		if !env.ReadDenied("list_files", f.Path) {
			kept = append(kept, f)
		}
	}
	files = kept
	if len(files) == 0 {
		msg := fmt.Sprintf("No files match %q under %s.", in.Pattern, shownPath(env, dir))
		if pattern != "" && !strings.Contains(pattern, "**") && !strings.Contains(pattern, "/") {
			msg += fmt.Sprintf(" The pattern only matches the top level; use **/%s to search subdirectories.", pattern)
		}
		if interrupted {
			msg = "list_files was interrupted before finding any file: " + err.Error()
		}
		return Result{Content: msg}, nil
	}
	var b strings.Builder
	for i, f := range files {
		if i == ListMax {
			break
		}
		b.WriteString(shownPath(env, f.Path))
		b.WriteByte('\n')
	}
	if n := len(files) - ListMax; n > 0 {
		fmt.Fprintf(&b, "[%d more files omitted (%d matched); narrow the pattern or path]\n", n, len(files))
	}
	if interrupted {
		fmt.Fprintf(&b, "[listing interrupted (%v); the list may be incomplete]\n", err)
	}
	return Result{Content: strings.TrimSuffix(b.String(), "\n")}, nil
}

// Summary implements Summarizer: the pattern and where.
func (ListFiles) Summary(input json.RawMessage) string {
	return joinNonEmpty(Field(input, "pattern"), inPath(Field(input, "path")))
}

// Subject implements Subjecter: the directory listed, else the pattern.
func (ListFiles) Subject(input json.RawMessage) string {
	if p := Field(input, "path"); p != "" {
		return p
	}
	return Field(input, "pattern")
}
