package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/hew-dev/hew/internal/tools"
)

// approvalDiff renders the change an edit or write would make, for the
// approval prompt. Other tools have none.
func approvalDiff(env *tools.Env, name string, input json.RawMessage) string {
	var in struct {
		FilePath  string `json:"file_path"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Content   string `json:"content"`
	}
	if json.Unmarshal(input, &in) != nil || in.FilePath == "" {
		return ""
	}
	switch name {
	case "edit_file":
		return udiff.Unified(in.FilePath, in.FilePath, withNL(in.OldString), withNL(in.NewString))
	case "write_file":
		var old string
		path := in.FilePath
		if env != nil && !filepath.IsAbs(path) {
			path = filepath.Join(env.Root, path)
		}
		if b, err := os.ReadFile(path); err == nil && len(b) <= 1<<20 {
			old = string(b)
		}
		return udiff.Unified(in.FilePath, in.FilePath, old, withNL(in.Content))
	}
	return ""
}

func withNL(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}
