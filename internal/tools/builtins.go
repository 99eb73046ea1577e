package tools

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

//go:embed *.md
var descriptions embed.FS

// builtin is the Spec of a built-in tool: NAME.md of this package and its schema.
func builtin(name, schema string) Spec { return NewSpec(descriptions, name, schema) }

// RegisterBuiltins adds hew's built-in tools to r in the fixed order the
// model sees them (SPEC section 4). skill and agent belong to other packages.
func RegisterBuiltins(r *Registry) {
	r.Register(ReadFile{readFileSpec})
	r.Register(WriteFile{writeFileSpec})
	r.Register(EditFile{editFileSpec})
	r.Register(ListFiles{listFilesSpec})
	r.Register(GrepSearch{grepSearchSpec})
	r.Register(RunShell{runShellSpec})
	r.Register(WebFetch{webFetchSpec})
	r.Register(TodoWrite{todoWriteSpec})
	r.Register(NewToolSearch(r))
}

// decode unmarshals validated input into T ({} when empty).
func decode[T any](input json.RawMessage) (T, error) {
	var v T
	if len(bytes.TrimSpace(input)) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(input, &v); err != nil {
		return v, fmt.Errorf("decode input: %w", err)
	}
	return v, nil
}

// receiptOf computes the read receipt for content just read from or
// written to a file.
func receiptOf(fi os.FileInfo, content []byte) ReadReceipt {
	sum := sha256.Sum256(content)
	return ReadReceipt{ModTime: fi.ModTime(), Size: fi.Size(), SHA256: hex.EncodeToString(sum[:])}
}

func sha(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// checkFresh enforces read-before-write: an existing file may only be
// changed when the model read it and it has not changed since. A nil
// tracker (no session memory, e.g. one-shot executors) skips the guard.
func checkFresh(env *Env, tool, abs, shown string, content []byte) error {
	if env == nil || env.Reads == nil {
		return nil
	}
	rec, ok := env.Reads.Get(abs)
	if !ok {
		return fmt.Errorf("%s: %s has not been read in this session; read it with read_file first, then retry", tool, shown)
	}
	if rec.SHA256 != sha(content) {
		return fmt.Errorf("%s: %s changed since it was last read (someone else modified it); re-read it with read_file and redo the change on the current content", tool, shown)
	}
	return nil
}

// unifiedDiff renders a line diff of a change for the user and the model.
func unifiedDiff(name, before, after string) string {
	edits := udiff.Lines(before, after)
	d, err := udiff.ToUnified("a/"+name, "b/"+name, before, edits, 3)
	if err != nil {
		return ""
	}
	return d
}

// diffStat counts added and removed lines in a unified diff.
func diffStat(diff string) (add, del int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return
}

// shown is how a path appears in messages: relative to the root when inside.
func shownPath(env *Env, abs string) string {
	root := ""
	if env != nil {
		root = env.Root
	}
	if root != "" {
		if r, err := realRoot(root); err == nil {
			root = r
		}
	}
	return relTo(root, abs)
}
