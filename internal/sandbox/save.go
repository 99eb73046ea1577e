package sandbox

import "github.com/hew-dev/hew/internal/config"

// AddAllowedDomain adds host to sandbox.allowedDomains of the settings file
// at path (the answer "yes, and don't ask again" to a domain question),
// keeping every other key; the file is written atomically. A file that is
// not a JSON object is left alone and reported.
func AddAllowedDomain(path, host string) error {
	return config.AppendToList(path, "sandbox", "allowedDomains", host)
}
