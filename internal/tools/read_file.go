package tools

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/hew-dev/hew/internal/fsutil"
)

// read_file limits.
const (
	ReadDefaultLimit = 2000
	ReadMaxLineChars = 2000
	// ReadWholeMaxBytes is the largest file read whole without offset/limit;
	// a larger one answers with its first window and how to page on.
	ReadWholeMaxBytes = 256 * 1024
	// ReadWindowBytes bounds that first window so it reaches the model
	// whole (below the 50,000-character cut of tool results).
	ReadWindowBytes = 40 * 1024
	// ReadMaxOutputBytes caps one answer even when offset/limit are given.
	ReadMaxOutputBytes = 256 * 1024
)

// ReadFile is the read_file tool.
type ReadFile struct{ Spec }

var readFileSpec = builtin("read_file", `{
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

// ReadOnly implements Tool.
func (ReadFile) ReadOnly(json.RawMessage) bool { return true }

// Explores implements Explorer.
func (ReadFile) Explores() bool { return true }

// Refetch implements Refetchable: the file, and the lines read when the
// call gave a range.
func (ReadFile) Refetch(input json.RawMessage) Refetch {
	var in struct {
		FilePath string          `json:"file_path"`
		Offset   json.RawMessage `json:"offset"`
		Limit    json.RawMessage `json:"limit"`
	}
	_ = json.Unmarshal(input, &in) // a malformed input just names less
	if in.FilePath == "" {
		return Refetch{}
	}
	r := Refetch{What: in.FilePath, File: in.FilePath}
	if len(in.Offset) > 0 || len(in.Limit) > 0 {
		r.Range = string(in.Offset) + ":" + string(in.Limit)
	}
	return r
}

// Touches implements FileToucher: the file read.
func (ReadFile) Touches(input json.RawMessage) (string, bool) {
	return Field(input, "file_path"), false
}

// Check refuses an empty path or one outside the allowed directories.
func (t ReadFile) Check(env *Env, input json.RawMessage) error {
	in, err := decode[readFileInput](input)
	if err != nil {
		return err
	}
	if strings.TrimSpace(in.FilePath) == "" {
		return errors.New("read_file: file_path is empty; give the path of the file to read")
	}
	_, err = resolvePath(env, t, in.FilePath)
	return err
}

// Run reads the requested lines and records a read receipt.
func (t ReadFile) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	in, err := decode[readFileInput](input)
	if err != nil {
		return Result{}, err
	}
	abs, err := resolvePath(env, t, in.FilePath)
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
	maxOut := ReadMaxOutputBytes
	big := !partial && fi.Size() > ReadWholeMaxBytes
	if big {
		maxOut = ReadWindowBytes
	}
	f, err := os.Open(abs)
	if err != nil {
		return Result{}, fmt.Errorf("read_file: %w", err)
	}
	defer f.Close()
	// Stream the file: the hash for the receipt covers all of it while only
	// the requested lines are kept, so a part of a huge log is cheap.
	h := sha256.New()
	counted := &countingWriter{w: h}
	br := bufio.NewReaderSize(io.TeeReader(f, counted), 64*1024)
	head, _ := br.Peek(fsutil.SniffLen)
	if fsutil.IsBinary(head) {
		return Result{}, fmt.Errorf("read_file: %s looks like a binary file (%s); read_file only shows text. Inspect it with run_shell (e.g. `file %s` or `xxd %s | head`)", shown, humanBytes(fi.Size()), shown, shown)
	}
	offset := max(in.Offset, 1)
	limit := in.Limit
	if limit <= 0 {
		limit = ReadDefaultLimit
	}
	content, err := numberLines(ctx, br, shown, offset, limit, maxOut)
	if err != nil {
		return Result{}, fmt.Errorf("read_file: %s: %w", shown, err)
	}
	if env != nil && env.Reads != nil {
		env.Reads.Record(abs, ReadReceipt{ModTime: fi.ModTime(), Size: counted.n, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
	if big {
		content = fmt.Sprintf("[%s is %s, too large to show whole: this is its first part]\n", shown, humanBytes(fi.Size())) + content
	}
	return Result{Content: content}, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

// Write counts and forwards.
func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.w.Write(p)
}

// numberLines formats lines [offset, offset+limit) cat -n style, reads the
// rest of r to count the lines, and says how to continue when more follow.
func numberLines(ctx context.Context, r *bufio.Reader, shown string, offset, limit, maxOut int) (string, error) {
	var b strings.Builder
	line, shownLines, stoppedAt := 0, 0, 0
	sawAny := false
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		raw, err := r.ReadString('\n')
		if raw == "" && err != nil {
			if err == io.EOF {
				break
			}
			return "", err
		}
		sawAny = true
		line++
		if line < offset || stoppedAt > 0 {
			continue
		}
		if shownLines >= limit || b.Len() > maxOut {
			stoppedAt = line
			continue
		}
		text := strings.TrimSuffix(strings.TrimSuffix(raw, "\n"), "\r")
		if utf8.RuneCountInString(text) > ReadMaxLineChars {
			rs := []rune(text)
			text = string(rs[:ReadMaxLineChars]) + fmt.Sprintf("… [line cut, %d more characters]", len(rs)-ReadMaxLineChars)
		}
		fmt.Fprintf(&b, "%6d\t%s\n", line, text)
		shownLines++
	}
	if !sawAny {
		return fmt.Sprintf("(%s is empty)", shown), nil
	}
	if shownLines == 0 {
		return fmt.Sprintf("%s has %d lines; offset %d is past the end. Use a smaller offset.", shown, line, offset), nil
	}
	if stoppedAt > 0 {
		fmt.Fprintf(&b, "\n[%s has more lines: showed lines %d–%d of %d; continue with offset=%d (and limit=N for N lines), or find the lines you need with grep_search]\n", shown, offset, stoppedAt-1, line, stoppedAt)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
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

// Summary implements Summarizer: the path and the line range read.
func (ReadFile) Summary(input json.RawMessage) string {
	m := fields(input)
	arg, _ := m["file_path"].(string)
	if off, ok := m["offset"].(float64); ok {
		arg += fmt.Sprintf(":%d", int(off))
		if lim, ok := m["limit"].(float64); ok {
			arg += fmt.Sprintf("-%d", int(off)+int(lim)-1)
		}
	}
	return arg
}

// Subject implements Subjecter: the file.
func (ReadFile) Subject(input json.RawMessage) string { return Field(input, "file_path") }
