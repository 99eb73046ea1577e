package mcp

import (
	"encoding/json"
	"path/filepath"
	"sort"

	"github.com/hew-dev/hew/internal/config"
)

// FromSettings turns the merged mcpServers of internal/config (each server's
// raw JSON and source file) into Sources for LoadConfig, grouped by file so
// problems name the right one. The scope follows the file: settings.local.json
// is local, a file under home is user, anything else project.
func FromSettings(servers map[string]config.MCPServer, home string) []Source {
	byPath := map[string]*Source{}
	var paths []string
	for name, s := range servers {
		src, ok := byPath[s.Source]
		if !ok {
			src = &Source{Scope: settingsScope(s.Source, home), Path: s.Source, Servers: map[string]json.RawMessage{}}
			byPath[s.Source] = src
			paths = append(paths, s.Source)
		}
		src.Servers[name] = s.Raw
	}
	sort.Strings(paths)
	out := make([]Source, 0, len(paths))
	for _, p := range paths {
		out = append(out, *byPath[p])
	}
	return out
}

func settingsScope(path, home string) string {
	switch {
	case filepath.Base(path) == "settings.local.json":
		return ScopeLocal
	case home != "" && filepath.IsAbs(path) && isUnder(path, home):
		return ScopeUser
	}
	return ScopeProject
}

func isUnder(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != ".."+string(filepath.Separator))
}
