package repl

import (
	"context"
	"fmt"
	"time"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/core"
	"github.com/hew-dev/hew/internal/term"
	"github.com/hew-dev/hew/internal/ui/render"
)

// Terminal is the front-end of interactive runs: the renderer and the
// approver asking on the same streams. The wiring makes it once the
// settings are known and gives the session its Approver, Renderer.Emit and
// Approver.ChoosePlan.
type Terminal struct {
	Streams  *term.Streams
	Renderer *render.Renderer
	Approver *Approver
}

// NewTerminal makes the terminal front-end over s. verbose is --verbose;
// bell is the settings' "bell" (false: never ring when a long turn ends).
func NewTerminal(s *term.Streams, verbose, bell bool) *Terminal {
	after := time.Duration(0) // the renderer's default
	if !bell {
		after = -1
	}
	r := render.New(s, render.Options{Verbose: verbose, BellAfter: after})
	return &Terminal{Streams: s, Renderer: r, Approver: NewApprover(s, r)}
}

// RunOnce runs one task on the terminal (`hew PROMPT` in a terminal):
// streamed text, tool lines and questions asked; a turn that did not
// finish its work says why on stderr.
func (t *Terminal) RunOnce(ctx context.Context, s interface {
	Submit(ctx context.Context, text string) agent.TurnResult
}, text string) agent.TurnResult {
	res := s.Submit(ctx, text)
	t.Renderer.Close()
	if res.StopReason != agent.StopCompleted && res.StopReason != agent.StopGoalMet {
		msg := "stopped: " + string(res.StopReason)
		if res.Err != "" {
			msg += ": " + res.Err
		}
		fmt.Fprintln(t.Streams.Err, "hew: "+msg)
	}
	return res
}

// BannerSession is what the banner tells about a session.
type BannerSession interface {
	ProviderName() string
	Model() string
	Root() string
	ID() string
	Resumed() int
	TakeNotices() []string
}

var _ BannerSession = (*core.Session)(nil)

// Banner is the first lines of an interactive session: version, provider,
// model and directory; the session resumed, when it was (-c, --resume);
// and the warnings gathered while building (sandbox, settings), at once.
func Banner(version string, s BannerSession, resumed bool) string {
	b := fmt.Sprintf("%s · %s %s · %s", version, s.ProviderName(), s.Model(), s.Root())
	if resumed {
		b += fmt.Sprintf("\nresumed session %s (%d messages)", s.ID(), s.Resumed())
	}
	for _, n := range s.TakeNotices() {
		b += "\nwarning: " + n
	}
	return b
}
