package wakeup

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/tools"
	"github.com/hew-dev/hew/internal/wakeup"
)

func TestScheduleWithinARound(t *testing.T) {
	sched := &wakeup.Schedule{}
	w := New(sched)
	reg := tools.NewRegistry()
	reg.Register(w)
	if reg.Visible(Name) {
		t.Fatal("schedule_wakeup visible before any dynamic loop")
	}
	if _, err := w.Run(context.Background(), nil, json.RawMessage(`{"delay_seconds":120,"reason":"x"}`)); err == nil || !strings.Contains(err.Error(), "only inside a dynamic loop") {
		t.Fatalf("outside a loop: %v", err)
	}
	cases := []struct {
		secs int
		want time.Duration
	}{{120, 2 * time.Minute}, {5, wakeup.MinDelay}, {99999, wakeup.MaxDelay}}
	for _, c := range cases {
		sched.Begin()
		in, _ := json.Marshal(map[string]any{"delay_seconds": c.secs, "reason": "check the build"})
		res, err := w.Run(context.Background(), nil, in)
		if err != nil || !strings.Contains(res.Content, "check the build") {
			t.Fatalf("%d: %v %q", c.secs, err, res.Content)
		}
		r, ok := sched.Take()
		if !ok || r.Delay != c.want || r.Reason != "check the build" {
			t.Errorf("%d s: got %+v %v, want %s", c.secs, r, ok, c.want)
		}
	}
	sched.Begin()
	if _, ok := sched.Take(); ok {
		t.Fatal("a round without a call scheduled a wake-up")
	}
}
