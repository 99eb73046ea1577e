package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/llm"
)

// fakeSleep records waits instead of sleeping so tests run instantly.
type fakeSleep struct{ waits []time.Duration }

func (f *fakeSleep) sleep(ctx context.Context, d time.Duration) error {
	f.waits = append(f.waits, d)
	return ctx.Err()
}

func testPolicy(f *fakeSleep) *Policy {
	p := Default()
	p.Sleep = f.sleep
	p.Rand = func() float64 { return 0.5 }
	return p
}

func TestDoRetriesTransientThenSucceeds(t *testing.T) {
	f := &fakeSleep{}
	p := testPolicy(f)
	calls := 0
	var events []llm.Event
	err := p.Do(context.Background(), func(ctx context.Context) error {
		calls++
		if calls < 3 {
			return HTTPError(429, http.Header{}, "rate_limit_error", "slow down")
		}
		return nil
	}, func(e llm.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || len(events) != 2 {
		t.Fatalf("calls=%d events=%d, want 3 and 2", calls, len(events))
	}
	for i, e := range events {
		if e.Type != llm.EvRetry || e.Attempt != i+1 || e.Err == nil {
			t.Errorf("event %d = %+v", i, e)
		}
	}
	// 0.5 s·2ⁿ with jitter 0.5 → 750 ms, 1.5 s.
	if len(f.waits) != 2 || f.waits[0] != 750*time.Millisecond || f.waits[1] != 1500*time.Millisecond {
		t.Fatalf("waits = %v", f.waits)
	}
}

func TestDoGivesUpAfterThreeRetries(t *testing.T) {
	f := &fakeSleep{}
	calls := 0
	err := testPolicy(f).Do(context.Background(), func(ctx context.Context) error {
		calls++
		return HTTPError(529, http.Header{}, "overloaded_error", "Overloaded")
	}, nil)
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Status != 529 || ae.Retries != 3 {
		t.Fatalf("err = %#v", err)
	}
	if calls != 4 {
		t.Fatalf("calls = %d, want 4 (1 + 3 retries)", calls)
	}
	if want := "model API error 529 (overloaded_error): Overloaded (after 3 retries)"; err.Error() != want {
		t.Fatalf("message %q, want %q", err.Error(), want)
	}
}

func TestDoNeverRetriesRequestErrors(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			calls := 0
			err := testPolicy(&fakeSleep{}).Do(context.Background(), func(ctx context.Context) error {
				calls++
				return HTTPError(status, http.Header{"Retry-After": {"1"}}, "invalid_request_error", "bad field")
			}, nil)
			var ae *llm.APIError
			if calls != 1 || !errors.As(err, &ae) || ae.Status != status || ae.Retries != 0 {
				t.Fatalf("calls=%d err=%v", calls, err)
			}
		})
	}
}

func TestShouldRetryHeader(t *testing.T) {
	isRetry := func(err error) bool { var re *Error; return errors.As(err, &re) }
	tests := []struct {
		status int
		header string
		want   bool
	}{
		{529, "", true}, {529, "false", false}, {409, "", true}, {418, "true", true}, {400, "true", false}, {401, "", false},
	}
	for _, tc := range tests {
		h := http.Header{}
		if tc.header != "" {
			h.Set("X-Should-Retry", tc.header)
		}
		if got := isRetry(HTTPError(tc.status, h, "", "")); got != tc.want {
			t.Errorf("status %d x-should-retry %q: retryable %v, want %v", tc.status, tc.header, got, tc.want)
		}
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{http.Header{"Retry-After": {"0.25"}}, 250 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"120"}, "Retry-After": {"9"}}, 120 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(3 * time.Second).Format(http.TimeFormat)}}, 3 * time.Second},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{}, 0},
	}
	for _, tc := range tests {
		if got := After(tc.h, now); got != tc.want {
			t.Errorf("After(%v) = %v, want %v", tc.h, got, tc.want)
		}
	}
	f := &fakeSleep{}
	calls := 0
	_ = testPolicy(f).Do(context.Background(), func(ctx context.Context) error {
		calls++
		if calls == 1 {
			return HTTPError(429, http.Header{"Retry-After": {"7"}}, "", "")
		}
		if calls == 2 {
			return HTTPError(503, http.Header{"Retry-After": {"3600"}}, "", "")
		}
		return nil
	}, nil)
	if len(f.waits) != 2 || f.waits[0] != 7*time.Second || f.waits[1] != 60*time.Second {
		t.Fatalf("waits = %v, want [7s 60s] (server value, then capped)", f.waits)
	}
}

func TestClassification(t *testing.T) {
	ctx := context.Background()
	isRetry := func(err error) bool { var re *Error; return errors.As(err, &re) }
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"unexpected eof", io.ErrUnexpectedEOF, true},
		{"plain error", errors.New("bad json"), false},
		{"overloaded event", StreamError("overloaded_error", "Overloaded"), true},
		{"api_error event", StreamError("api_error", "Internal"), true},
		{"invalid request event", StreamError("invalid_request_error", "nope"), false},
		{"cut", Cut("message_stop", io.ErrUnexpectedEOF), true},
	}
	for _, tc := range tests {
		if got := isRetry(Transport(ctx, tc.err)); got != tc.want {
			t.Errorf("%s: retryable=%v, want %v", tc.name, got, tc.want)
		}
	}
	if !errors.Is(Cut("[DONE]", nil), ErrStreamCut) {
		t.Error("Cut must match ErrStreamCut")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if isRetry(Transport(cctx, io.ErrUnexpectedEOF)) {
		t.Error("errors after cancellation must not be retried")
	}
}

func TestDoStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := testPolicy(&fakeSleep{}).Do(ctx, func(ctx context.Context) error {
		calls++
		cancel()
		return Retryable(errors.New("boom"), 0)
	}, nil)
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Fatalf("err=%v calls=%d", err, calls)
	}
}

func TestDelayGrowsAndIsCapped(t *testing.T) {
	p := Default()
	p.MaxDelay = 3 * time.Second
	for n, bounds := range [][2]time.Duration{{500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}, {2 * time.Second, 3 * time.Second}} {
		for i := 0; i < 50; i++ {
			d := p.Delay(n, 0)
			if d < bounds[0] || d > bounds[1] {
				t.Fatalf("Delay(%d) = %v, outside %v", n, d, bounds)
			}
		}
	}
}

// A cut stream or reset connection is retried at once the first time, then
// with backoff (issue 12.14: the first retry used to wait 0.5–1 s); an
// overloaded server still gets its backoff from the first retry.
func TestCutStreamRetriedAtOnceThenBackoff(t *testing.T) {
	cases := []struct {
		name  string
		errs  []error
		waits []time.Duration
	}{
		{"cut, cut, cut", []error{Cut("message_stop", io.ErrUnexpectedEOF), Cut("message_stop", nil), Cut("[DONE]", nil)}, []time.Duration{0, 750 * time.Millisecond, 1500 * time.Millisecond}},
		{"reset then 429", []error{Transport(context.Background(), fmt.Errorf("read: %w", syscall.ECONNRESET)), HTTPError(429, http.Header{}, "rate_limit_error", "slow")}, []time.Duration{0, 750 * time.Millisecond}},
		{"503 then the first cut", []error{HTTPError(503, http.Header{}, "overloaded_error", "busy"), Cut("message_stop", nil)}, []time.Duration{750 * time.Millisecond, 0}},
	}
	for _, tc := range cases {
		f := &fakeSleep{}
		p := testPolicy(f)
		n := 0
		var delays []int
		err := p.Do(context.Background(), func(context.Context) error {
			if n < len(tc.errs) {
				n++
				return tc.errs[n-1]
			}
			return nil
		}, func(e llm.Event) { delays = append(delays, e.DelayMS) })
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if fmt.Sprint(f.waits) != fmt.Sprint(tc.waits) {
			t.Errorf("%s: waits %v, want %v", tc.name, f.waits, tc.waits)
		}
		if len(delays) != len(tc.waits) || delays[0] != int(tc.waits[0]/time.Millisecond) {
			t.Errorf("%s: retry events announce %v", tc.name, delays)
		}
	}
}
