package wakeup

import (
	"errors"
	"testing"
	"time"
)

func TestScheduleAskWithinARound(t *testing.T) {
	var s Schedule
	if _, err := s.Ask(time.Minute, "x"); !errors.Is(err, ErrNoLoop) {
		t.Fatalf("outside a round: %v", err)
	}
	s.Begin()
	if _, err := s.Ask(time.Second, "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(2*time.Hour, " later "); err != nil {
		t.Fatal(err)
	}
	r, ok := s.Take()
	if !ok || r.Delay != MaxDelay || r.Reason != "later" {
		t.Fatalf("got %+v %v: the last request of a round counts, clamped and trimmed", r, ok)
	}
	if _, err := s.Ask(time.Minute, "after"); !errors.Is(err, ErrNoLoop) {
		t.Fatalf("after Take: %v", err)
	}
}
