package retry

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrIdle means the server sent nothing for longer than the idle limit.
var ErrIdle = errors.New("no data from the model server")

// Idle cancels a request whose server goes quiet, so a hung connection is
// retried like a reset one instead of waiting forever.
type Idle struct {
	t *time.Timer
	d time.Duration
}

// WithIdle derives a context cancelled after d without a Kick. d <= 0 means
// no limit. The returned stop must be called to release the timer.
func WithIdle(ctx context.Context, d time.Duration) (context.Context, *Idle, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	if d <= 0 {
		return ctx, &Idle{}, func() { cancel(nil) }
	}
	i := &Idle{d: d}
	i.t = time.AfterFunc(d, func() { cancel(fmt.Errorf("%w for %v", ErrIdle, d)) })
	return ctx, i, func() { i.t.Stop(); cancel(nil) }
}

// Kick records that data arrived.
func (i *Idle) Kick() {
	if i.t != nil {
		i.t.Reset(i.d)
	}
}

// Check turns err into a retryable idle timeout when ctx was ended by the
// idle timer rather than by the caller (parent is the caller's context).
func Check(parent, ctx context.Context, err error) error {
	if err == nil || parent.Err() != nil {
		return err
	}
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, ErrIdle) {
		return Retryable(cause, 0)
	}
	return Transport(parent, err)
}
