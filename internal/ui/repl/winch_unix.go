//go:build unix

package repl

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyResize signals ch (without blocking) whenever the terminal is
// resized, until the returned stop is called.
func notifyResize(ch chan struct{}) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sig:
				select {
				case ch <- struct{}{}:
				default:
				}
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(sig); close(done) }
}
