//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package term

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// MakeKeyMode puts the input terminal in "key mode" for a whole
// interactive session: every key arrives as bytes at once (no line
// buffering, no echo, Ctrl+C and Esc are bytes, not signals), while output
// processing stays on, so a program's "\n" still returns the carriage and
// output written during a turn needs no translation. It returns the
// function that restores the previous mode.
func (s *Streams) MakeKeyMode() (restore func(), err error) {
	if s.inFile == nil {
		return nil, ErrNotTerminal
	}
	fd := int(s.inFile.Fd())
	old, err := unix.IoctlGetTermios(fd, ioctlReadTermios)
	if err != nil {
		return nil, fmt.Errorf("key mode: %w", err)
	}
	t := *old
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Oflag |= unix.OPOST
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(fd, ioctlWriteTermios, &t); err != nil {
		return nil, fmt.Errorf("key mode: %w", err)
	}
	return func() { _ = unix.IoctlSetTermios(fd, ioctlWriteTermios, old) }, nil
}
