package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hew-dev/hew/internal/fsutil"
)

// AddAllowedDomain adds host to sandbox.allowedDomains of the settings file
// at path (the answer "yes, and don't ask again" to a domain question),
// keeping every other key; the file is written atomically. A file that is
// not a JSON object is left alone and reported.
func AddAllowedDomain(path, host string) error {
	obj := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading %s: %w", path, err)
	case len(strings.TrimSpace(string(data))) > 0:
		if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
			return fmt.Errorf("%s is not a JSON object (%v); add %q to sandbox.allowedDomains by hand", path, err, host)
		}
	}
	sb, ok := obj["sandbox"].(map[string]any)
	if obj["sandbox"] != nil && !ok {
		return fmt.Errorf("%s: \"sandbox\" is not an object; add %q to sandbox.allowedDomains by hand", path, host)
	}
	if sb == nil {
		sb = map[string]any{}
	}
	list, ok := sb["allowedDomains"].([]any)
	if sb["allowedDomains"] != nil && !ok {
		return fmt.Errorf("%s: sandbox.allowedDomains is not a list; add %q by hand", path, host)
	}
	for _, v := range list {
		if v == host {
			return nil
		}
	}
	sb["allowedDomains"] = append(list, host)
	obj["sandbox"] = sb
	out, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, append(out, '\n'), 0o644)
}
