//go:build unix

package term

import (
	"syscall"
	"testing"
	"time"
)

// The first SIGINT cancels the context instead of killing the process;
// stop releases the handler and the goroutine.
func TestInterruptContext(t *testing.T) {
	ctx, stop := InterruptContext()
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGINT did not cancel the context")
	}
	ctx2, stop2 := InterruptContext()
	stop2()
	if ctx2.Err() == nil {
		t.Fatal("stop did not cancel the context")
	}
}
