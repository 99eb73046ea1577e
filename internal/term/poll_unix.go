//go:build unix

package term

import (
	"errors"

	"golang.org/x/sys/unix"
)

// waitReadable waits up to ms milliseconds for fd to have input.
func waitReadable(fd, ms int) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, ms)
	if errors.Is(err, unix.EINTR) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return n > 0, nil
}
