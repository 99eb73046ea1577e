package sandbox

import (
	"path/filepath"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/netproxy"
)

// FromSettings are a session's sandbox options from its settings;
// noSandbox (--no-sandbox) turns the sandbox off explicitly, which no
// permission mode does.
func FromSettings(s *config.Settings, noSandbox bool, pol Policy) Options {
	o := Options{
		Policy:  pol,
		Enabled: s.Sandbox.Enabled && !noSandbox,
		Network: s.Sandbox.Network,
		Rules:   netproxy.Rules{Allowed: s.Sandbox.AllowedDomains, Denied: s.Sandbox.DeniedDomains},
	}
	if noSandbox {
		o.DisabledBy = "--no-sandbox"
	}
	return o
}

// AddAllowedDomain adds host to sandbox.allowedDomains of the settings file
// at path (the answer "yes, and don't ask again" to a domain question),
// keeping every other key; the file is written atomically. A file that is
// not a JSON object is left alone and reported.
func AddAllowedDomain(path, host string) error {
	return config.AppendToList(path, "sandbox", "allowedDomains", host)
}

// AllowInProject adds host to sandbox.allowedDomains of the project's
// .hew/settings.local.json and returns that file. A project that was
// trusted stays trusted: the change is the user's own.
func AllowInProject(p config.Paths, host string) (string, error) {
	local := filepath.Join(p.Project, ".hew", "settings.local.json")
	return local, config.KeepTrust(p, func() error { return AddAllowedDomain(local, host) })
}
