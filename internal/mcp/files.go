package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hew-dev/hew/internal/config"
)

// Where each scope's servers live, for the commands that edit and show
// them (internal/cmd/mcp). A session gets its servers through
// internal/config instead, which also decides the project's trust.

// StateWithheld is the state of a project server that is not started
// because the project is not trusted (see Withheld). A Manager never
// reports it: it never hears of such a server.
const StateWithheld = "withheld"

// ScopeFile is the file new servers of scope are written to: local (also
// "") .hew/settings.local.json, project .mcp.json, user
// $HEW_HOME/settings.json. root is the project root, home $HEW_HOME; a scope
// whose directory is unknown, or an unknown scope, is an error.
func ScopeFile(scope, root, home string) (string, error) {
	switch scope {
	case ScopeProject:
		if root == "" {
			return "", errors.New("no project root")
		}
		return filepath.Join(root, ".mcp.json"), nil
	case "", ScopeLocal:
		if root == "" {
			return "", errors.New("no project root")
		}
		return filepath.Join(root, ".hew", "settings.local.json"), nil
	case ScopeUser:
		if home == "" {
			return "", errors.New("no HEW_HOME")
		}
		return filepath.Join(home, "settings.json"), nil
	}
	return "", fmt.Errorf("unknown scope %q (want local, project or user)", scope)
}

// ScopeFiles are the files that define servers of scope (user, project or
// local), lowest precedence first as a session merges them: project is
// .hew/settings.json, then .mcp.json. Files under an unknown directory
// (root or home "") are left out.
func ScopeFiles(scope, root, home string) []string {
	switch {
	case scope == ScopeUser && home != "":
		return []string{filepath.Join(home, "settings.json")}
	case scope == ScopeProject && root != "":
		return []string{filepath.Join(root, ".hew", "settings.json"), filepath.Join(root, ".mcp.json")}
	case scope == ScopeLocal && root != "":
		return []string{filepath.Join(root, ".hew", "settings.local.json")}
	}
	return nil
}

// Withheld reports whether a server of scope is left out of every session
// under the project's trust state t: the project's own files (project and
// local scope) may start servers only once the user trusts the project
// (internal/config decides). User servers and --mcp-config files are the
// user's own and never withheld; nor is anything under the zero Trust (the
// state could not be read).
func Withheld(scope string, t config.Trust) bool {
	return (scope == ScopeProject || scope == ScopeLocal) && t.Status != "" && !t.Applied()
}

// AddServer adds server name with definition def to the mcpServers of the
// file at path, atomically and leaving the rest of the file (keys, their
// order, its mode) as it was; a missing file is created. A server of that
// name already there is an error, and nothing is written.
func AddServer(path, name string, def json.RawMessage) error {
	return editServers(path, func(servers []member) ([]member, error) {
		if find(servers, name) >= 0 {
			return nil, fmt.Errorf("server %q already exists in %s; remove it first", name, path)
		}
		return append(servers, member{name, def}), nil
	})
}

// RemoveServer takes server name out of the file at path, atomically and
// leaving the rest as it was. A server that is not there is an error.
func RemoveServer(path, name string) error {
	return editServers(path, func(servers []member) ([]member, error) {
		i := find(servers, name)
		if i < 0 {
			return nil, fmt.Errorf("server %q is no longer in %s", name, path)
		}
		return append(servers[:i], servers[i+1:]...), nil
	})
}

// ClaudeServers reads the servers Claude Code keeps for the project at root
// in ~/.claude.json (projects[ROOT].mcpServers) and returns that file's path
// with them. hew never reads the file on its own: it belongs to another
// program, and the user imports from it by asking.
func ClaudeServers(userHome, root string) (string, map[string]json.RawMessage, error) {
	path := filepath.Join(userHome, ".claude.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return path, nil, err
	}
	var doc struct {
		Projects map[string]struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return path, nil, fmt.Errorf("%s: %w", path, jsonError(data, err))
	}
	return path, doc.Projects[root].MCPServers, nil
}
