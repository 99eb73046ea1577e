//go:build unix

package mockserver

import (
	"syscall"
	"testing"
)

// interrupt sends SIGINT to this process; Main has it caught.
func interrupt(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
}
