// Package retry is the one retry policy both model clients share: which
// failures are worth another attempt, how long to wait, and how a retry is
// announced, so a 529 or a cut stream is handled the same on every protocol.
package retry

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hew-dev/hew/internal/llm"
)

// Policy decides how often and how long to wait. The zero value is not
// useful; start from Default and override fields (tests swap Sleep).
type Policy struct {
	// MaxRetries is how many times the whole request is repeated.
	MaxRetries int
	// Base is the first backoff; each later one doubles. Jitter adds up to
	// one more Base·2ⁿ, so the first wait falls in [Base, 2·Base).
	Base time.Duration
	// MaxDelay caps any single wait, the server's retry-after included.
	MaxDelay time.Duration
	// Sleep waits d or until ctx ends. Tests replace it to run instantly.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand returns a number in [0,1) for jitter.
	Rand func() float64
}

// Default is 3 retries, 0.5–1 s first wait doubling, waits capped at 60 s.
func Default() *Policy {
	return &Policy{MaxRetries: 3, Base: 500 * time.Millisecond, MaxDelay: 60 * time.Second, Sleep: SleepContext, Rand: rand.Float64}
}

// SleepContext waits d or until ctx is done, whichever is first.
func SleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Error marks a failure as worth retrying. After is the server's requested
// wait (0 = use backoff).
type Error struct {
	Err   error
	After time.Duration
	// Cut marks a stream cut or a connection reset mid-way: a one-off
	// network blip, retried at once the first time (then with backoff),
	// where an overloaded server is given time.
	Cut bool
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Retryable wraps err so Do retries it.
func Retryable(err error, after time.Duration) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, After: after}
}

// RetryableStatus says whether an HTTP status is transient: rate limits,
// server errors and Anthropic's 529 overload. 4xx request errors never are.
func RetryableStatus(status int) bool {
	switch status {
	case 408, 409, 429, 500, 502, 503, 504, 529:
		return true
	}
	return false
}

// RetryableErrorType says whether an error type sent inside a 200 stream (or
// in an error body) is transient.
func RetryableErrorType(typ string) bool {
	t := strings.ToLower(typ)
	for _, s := range []string{"overloaded", "api_error", "server_error", "rate_limit", "timeout", "unavailable", "internal"} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// After reads how long the server asked us to wait: retry-after-ms, then
// retry-after in seconds or as an HTTP date. Missing or bad values give 0.
func After(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// HTTPError turns a failed HTTP response into an error: an *llm.APIError,
// wrapped as retryable when the status is transient. A server's explicit
// x-should-retry header overrides the status, except that request errors
// (400, 401, 403, 404) are never retried.
func HTTPError(status int, h http.Header, typ, msg string) error {
	e := &llm.APIError{Status: status, Type: typ, Message: msg}
	retryable := RetryableStatus(status)
	switch strings.ToLower(h.Get("X-Should-Retry")) {
	case "true":
		retryable = status != 400 && status != 401 && status != 403 && status != 404
	case "false":
		retryable = false
	}
	if retryable {
		return Retryable(e, After(h, time.Now()))
	}
	return e
}

// StreamError is an error event received inside a streaming 200 response.
func StreamError(typ, msg string) error {
	e := &llm.APIError{Status: 200, Type: typ, Message: msg}
	if RetryableErrorType(typ) {
		return Retryable(e, 0)
	}
	return e
}

// ErrStreamCut means the stream ended before its terminator.
var ErrStreamCut = errors.New("stream cut before its end")

// Cut reports a stream that stopped early; what names the missing marker.
func Cut(what string, cause error) error {
	msg := "stream cut before " + what
	if cause != nil && cause != io.EOF {
		msg += " (" + cause.Error() + ")"
	}
	return &Error{Err: &cutError{msg: msg}, Cut: true}
}

type cutError struct{ msg string }

func (e *cutError) Error() string { return e.msg }
func (e *cutError) Is(t error) bool {
	return t == ErrStreamCut
}

// Transport classifies an error from sending a request or reading a body:
// resets, timeouts and unexpected EOFs are retryable, the context's own
// cancellation is not. It returns err unchanged when it is not transient.
func Transport(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	var re *Error
	if errors.As(err, &re) {
		return err
	}
	var ne net.Error
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return &Error{Err: err, Cut: true}
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return Retryable(err, 0)
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return Retryable(err, 0)
	}
	return err
}

// Delay is the wait before retry n (0-based): the server's value when given
// (capped), else Base·2ⁿ plus jitter.
func (p *Policy) Delay(n int, after time.Duration) time.Duration {
	if after > 0 {
		return min(after, p.MaxDelay)
	}
	d := p.Base << n
	r := 0.5
	if p.Rand != nil {
		r = p.Rand()
	}
	d += time.Duration(r * float64(d))
	if p.MaxDelay > 0 && d > p.MaxDelay {
		d = p.MaxDelay
	}
	return d
}

// Do runs attempt until it succeeds, fails for good, or retries run out.
// Before each retry it calls onEvent with an EvRetry event, so the caller
// throws away what the failed attempt streamed. A final failure is an
// *llm.APIError whose Retries counts the retries made; context errors come
// back unchanged.
func (p *Policy) Do(ctx context.Context, attempt func(ctx context.Context) error, onEvent func(llm.Event)) error {
	if p == nil {
		p = Default()
	}
	sleep := p.Sleep
	if sleep == nil {
		sleep = SleepContext
	}
	quick := false
	for n := 0; ; n++ {
		err := attempt(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var re *Error
		if !errors.As(err, &re) {
			return final(err, n)
		}
		if n >= p.MaxRetries {
			return final(re.Err, n)
		}
		var d time.Duration
		switch {
		case re.Cut && !quick && re.After <= 0:
			quick = true // the first cut is retried at once
		case quick:
			d = p.Delay(n-1, re.After) // backoff as if the quick retry were not there
		default:
			d = p.Delay(n, re.After)
		}
		if onEvent != nil {
			onEvent(llm.Event{Type: llm.EvRetry, Attempt: n + 1, Err: re.Err, DelayMS: int(d / time.Millisecond)})
		}
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
}

// final shapes the error returned after the last attempt.
func final(err error, retries int) error {
	var ae *llm.APIError
	if errors.As(err, &ae) {
		cp := *ae
		cp.Retries = retries
		return &cp
	}
	if retries == 0 {
		return err
	}
	return &llm.APIError{Type: "connection", Message: err.Error(), Retries: retries}
}
