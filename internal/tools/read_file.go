package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/hew-dev/hew/internal/fsutil/fscore"
)

// read_file limits.
const (
	ReadDefaultLimit = 2000
	ReadMaxLineChars = 2000
	// ReadWholeMaxBytes is the largest file read without offset/limit.
	ReadWholeMaxBytes = 256 * 1024
	// ReadMaxOutputBytes caps one answer even when offset/limit are given.
	ReadMaxOutputBytes = 256 * 1024
)

// ReadFile is the read_file tool.
type ReadFile struct{}

var readFileMeta = newMeta("read_file", `{
 "type": "object",
 "properties": {
  "file_path": {"type": "string", "description": "Path of the file, absolute or relative to the project root"},
  "offset": {"type": "integer", "minimum": 1, "description": "1-based line number to start reading at"},
  "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines to read (default 2000)"}
 },
 "required": ["file_path"],
 "additionalProperties": false
}`)

type readFileInput struct {
	FilePath string `json:"file_path"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
}

func (ReadFile) Name() string                  { return readFileMeta.name }
func (ReadFile) Description() string           { return readFileMeta.desc }
func (ReadFile) Schema() json.RawMessage       { return readFileMeta.schema }
func (ReadFile) ReadOnly(json.RawMessage) bool { return true }

// Check refuses an empty path or one outside the allowed directories.
func (ReadFile) Check(env *Env, input json.RawMessage) error {
	in, err := decode[readFileInput](input)
	if err != nil {
		return err
	}
	if strings.TrimSpace(in.FilePath) == "" {
		return errors.New("read_file: file_path is empty; give the path of the file to read")
	}
	_, err = resolvePath(env, "read_file", in.FilePath)
	return err
}

// Run reads the requested lines and records a read receipt.
func (ReadFile) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	in, err := decode[readFileInput](input)
	if err != nil {
		return Result{}, err
	}
	abs, err := resolvePath(env, "read_file", in.FilePath)
	if err != nil {
		return Result{}, err
	}
	shown := shownPath(env, abs)
	fi, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return Result{}, fmt.Errorf("read_file: %s does not exist (check the path with list_files)", shown)
	}
	if err != nil {
		return Result{}, fmt.Errorf("read_file: %w", err)
	}
	if fi.IsDir() {
		return Result{}, fmt.Errorf("read_file: %s is a directory; use list_files to see its contents", shown)
	}
	partial := in.Offset > 0 || in.Limit > 0
	if !partial && fi.Size() > ReadWholeMaxBytes {
		return Result{}, fmt.Errorf("read_file: %s is %s, too large to read whole (limit %s); read a part with offset and limit (e.g. offset=1, limit=500), or find the lines you need with grep_search first",
			shown, humanBytes(fi.Size()), humanBytes(ReadWholeMaxBytes))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return Result{}, fmt.Errorf("read_file: %w", err)
	}
	if fscore.IsBinary(data) {
		return Result{}, fmt.Errorf("read_file: %s looks like a binary file (%s); read_file only shows text. Inspect it with run_shell (e.g. `file %s` or `xxd %s | head`)", shown, humanBytes(fi.Size()), shown, shown)
	}
	if env != nil && env.Reads != nil {
		env.Reads.Record(abs, receiptOf(fi, data))
	}
	if len(data) == 0 {
		return Result{Content: fmt.Sprintf("(%s is empty)", shown)}, nil
	}
	offset := max(in.Offset, 1)
	limit := in.Limit
	if limit <= 0 {
		limit = ReadDefaultLimit
	}
	return Result{Content: numberLines(ctx, data, shown, offset, limit)}, nil
}

// numberLines formats lines [offset, offset+limit) cat -n style and says
// how to continue when more lines follow.
func numberLines(ctx context.Context, data []byte, shown string, offset, limit int) string {
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), len(data)+1)
	line, shownLines, cutLines := 0, 0, 0
	stoppedAt := 0
	for sc.Scan() {
		line++
		if line < offset {
			continue
		}
		if shownLines >= limit {
			stoppedAt = line
			break
		}
		if b.Len() > ReadMaxOutputBytes || ctx.Err() != nil {
			stoppedAt = line
			break
		}
		text := strings.TrimSuffix(sc.Text(), "\r")
		if utf8.RuneCountInString(text) > ReadMaxLineChars {
			r := []rune(text)
			text = string(r[:ReadMaxLineChars]) + fmt.Sprintf("… [line cut, %d more characters]", len(r)-ReadMaxLineChars)
			cutLines++
		}
		fmt.Fprintf(&b, "%6d\t%s\n", line, text)
		shownLines++
	}
	total := bytes.Count(data, []byte("\n"))
	if data[len(data)-1] != '\n' {
		total++
	}
	if shownLines == 0 {
		return fmt.Sprintf("%s has %d lines; offset %d is past the end. Use a smaller offset.", shown, total, offset)
	}
	if stoppedAt > 0 {
		fmt.Fprintf(&b, "\n[%s has more lines: showed lines %d–%d of %d; continue with offset=%d]\n", shown, offset, stoppedAt-1, total, stoppedAt)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
