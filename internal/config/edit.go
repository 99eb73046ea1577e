package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/hew-dev/hew/internal/fsutil"
)

// AppendToList adds value to the list at section.key of the settings file
// at path ("permissions"."allow", "sandbox"."allowedDomains"), keeping every
// other key, and writes the file atomically; a value already there is not
// added twice. A file (or section) that is not what settings look like is
// left alone and reported, so nothing the user wrote is lost.
func AppendToList(path, section, key, value string) error {
	where := section + "." + key
	obj := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading %s: %w", path, err)
	case len(strings.TrimSpace(string(data))) > 0:
		if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
			return fmt.Errorf("%s is not a JSON object (%v); fix it or add %q to %s by hand", path, err, value, where)
		}
	}
	sec, ok := obj[section].(map[string]any)
	if obj[section] != nil && !ok {
		return fmt.Errorf("%s: %q is not an object; add %q to %s by hand", path, section, value, where)
	}
	if sec == nil {
		sec = map[string]any{}
	}
	list, ok := sec[key].([]any)
	if sec[key] != nil && !ok {
		return fmt.Errorf("%s: %s is not a list; add %q by hand", path, where, value)
	}
	for _, v := range list {
		if v == value {
			return nil
		}
	}
	sec[key] = append(list, value)
	obj[section] = sec
	out, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	return fsutil.WriteFileAtomic(path, append(out, '\n'), 0o644)
}
