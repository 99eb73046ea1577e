package session

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// sidechainDir is where the sub-agent transcripts of session id live:
// beside its file, so they move and go with it.
func sidechainDir(dir, id string) string { return filepath.Join(dir, id+".agents") }

// CreateSidechain starts the transcript file of a sub-agent of session
// parent (in the sessions directory dir). It is an ordinary session file,
// so `hew sessions show ID` shows it; it never appears in List.
func CreateSidechain(dir, parent string, meta Meta) (*Writer, error) {
	if err := checkID(parent); err != nil {
		return nil, err
	}
	meta.Parent = parent
	return Create(sidechainDir(dir, parent), meta)
}

// SidechainInfo summarises one sub-agent transcript.
type SidechainInfo struct {
	ID, Path, Title string
	Messages        int
}

// Sidechains lists the sub-agent transcripts of the session file at path,
// oldest first.
func Sidechains(path string) []SidechainInfo {
	dir := strings.TrimSuffix(path, ".jsonl") + ".agents"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []SidechainInfo
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		s, err := Load(p)
		if err != nil {
			continue
		}
		out = append(out, SidechainInfo{ID: s.Meta.ID, Path: p, Title: s.Meta.Title, Messages: len(s.Messages)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// findSidechain locates a sub-agent transcript by id in any project.
func findSidechain(home, id string) (string, error) {
	matches, err := filepath.Glob(filepath.Join(home, "projects", "*", "sessions", "*.agents", id+".jsonl"))
	if err != nil {
		return "", fmt.Errorf("session: find %s: %w", id, err)
	}
	if len(matches) == 0 {
		return "", nil
	}
	return matches[0], nil
}

// removeSidechains deletes the transcripts of session id in dir.
func removeSidechains(dir, id string) error {
	return os.RemoveAll(sidechainDir(dir, id))
}
