package permission

import (
	"path/filepath"

	"github.com/hew-dev/hew/internal/config"
)

// ForProject are the options of the engine of a session in root with the
// settings s: the user's home and $HEW_HOME; hew's own state the model may
// read but not write (cut tool results and memory, under stateDir); and
// "yes, and don't ask again" saved to the project's
// .hew/settings.local.json, a trusted project staying trusted. The rules
// and directories of the command line and the sandbox's state are the
// caller's to add.
func ForProject(root, homeDir, hewHome, stateDir string, s *config.Settings) Options {
	return Options{
		Root:          root,
		HomeDir:       homeDir,
		HewHome:       hewHome,
		Settings:      s,
		ReadableDirs:  []string{filepath.Join(stateDir, "tool-results"), filepath.Join(stateDir, "memory")},
		LocalSettings: filepath.Join(root, ".hew", "settings.local.json"),
		KeepTrust: func(write func() error) error {
			return config.KeepTrust(config.Paths{Home: hewHome, Project: root, UserHome: homeDir}, write)
		},
	}
}
