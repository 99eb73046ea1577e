package term

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// InterruptContext is cancelled by the first Ctrl+C (or SIGTERM), so a run
// can stop cleanly (the in-flight request cancelled, the session kept); a
// second signal then takes the default action and ends the process.
func InterruptContext() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-ch:
			cancel()
			signal.Stop(ch) // the next signal takes the default action
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
