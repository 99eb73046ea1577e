package render

import (
	"fmt"
	"time"
)

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinner is the one-line "working" indicator. Its goroutine only draws
// under the renderer's lock and exits when stopped.
type spinner struct {
	active bool
	drawn  bool // a frame is on screen and must be erased
	label  string
	start  time.Time
	frame  int
	stop   chan struct{}
	tick   func() (<-chan time.Time, func())
}

func defaultTicker() (<-chan time.Time, func()) {
	t := time.NewTicker(100 * time.Millisecond)
	return t.C, t.Stop
}

// startSpinner shows the spinner from the next tick on (so fast answers
// never flicker). Only on a terminal; the cursor must be at column 0.
func (r *Renderer) startSpinner(label string) {
	if !r.live {
		return
	}
	r.spin.label = label
	if r.spin.active {
		return
	}
	r.spin.active = true
	r.spin.start = r.now()
	stop := make(chan struct{})
	r.spin.stop = stop
	ticks, stopTicks := r.spin.tick()
	go func() {
		defer stopTicks()
		for {
			select {
			case <-stop:
				return
			case <-ticks:
				r.mu.Lock()
				if r.spin.stop == stop {
					r.drawSpinner()
				}
				r.mu.Unlock()
			}
		}
	}()
}

// stopSpinner stops the spinner and erases its frame.
func (r *Renderer) stopSpinner() {
	if !r.spin.active {
		return
	}
	r.spin.active = false
	close(r.spin.stop)
	r.spin.stop = nil
	if r.spin.drawn {
		r.write("\r\x1b[K")
		r.spin.drawn = false
	}
}

func (r *Renderer) drawSpinner() {
	start := r.spin.start
	if !r.turnStart.IsZero() {
		start = r.turnStart
	}
	secs := int(r.now().Sub(start).Seconds())
	frame := spinFrames[r.spin.frame%len(spinFrames)]
	r.spin.frame++
	text := Truncate(fmt.Sprintf("%s… %ds · esc to stop", r.spin.label, secs), r.s.Width()-3)
	r.write("\r" + r.st.cyan(frame) + " " + r.st.dim(text) + "\x1b[K")
	r.spin.drawn = true
}
