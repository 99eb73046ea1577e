//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package term

// MakeKeyMode puts the input terminal in raw mode, where keys arrive as
// bytes at once. On these systems (Windows) output processing belongs to
// the output handle, so it is unaffected.
func (s *Streams) MakeKeyMode() (restore func(), err error) { return s.MakeRaw() }
