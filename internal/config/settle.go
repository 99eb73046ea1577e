package config

import "fmt"

// Settle settles the trust of a project whose settings s were loaded from
// p. Settings that would run code or widen permissions and are not trusted
// yet are put to confirm as Trust.Prompt() (confirm is nil when nobody can
// be asked, as in a headless run). A yes is remembered and the settings are
// read again, so only what is on disk now, and matches what was shown,
// applies. Whatever stays withheld is told to warn in one line.
func Settle(p Paths, s *Settings, confirm func(question string) bool, warn func(line string)) (*Settings, error) {
	if !s.Trust.Pending() {
		return s, nil
	}
	if confirm != nil && confirm(s.Trust.Prompt()) {
		if err := RecordTrust(p.Home, s.Trust); err != nil {
			warn(fmt.Sprintf("could not remember the trust (%v); applying it for this run", err))
			p.TrustProject = true
		}
		var err error
		if s, err = Load(p); err != nil || !s.Trust.Pending() {
			return s, err
		}
	}
	warn(s.Trust.Notice())
	return s, nil
}
