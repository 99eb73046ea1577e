package headless

import (
	"bufio"
	"context"
	"io"
	"strings"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/permission"
)

// Session is what a headless run drives: the methods of core.Session it
// needs to announce the session and run its turns.
type Session interface {
	Prepare(ctx context.Context) error
	ID() string
	Model() string
	ProviderName() string
	ToolNames() []string
	Mode() permission.Mode
	Root() string
	Submit(ctx context.Context, text string) agent.TurnResult
}

// maxInputLine bounds one stream-json input line (a user message).
const maxInputLine = 10 << 20

// begin prepares the session and announces it. A failure to prepare is
// the first turn's error result, after the init event.
func (w *Writer) begin(ctx context.Context, s Session) {
	_ = s.Prepare(ctx)
	w.Start(Init{
		SessionID: s.ID(), Model: s.Model(), Provider: s.ProviderName(),
		Tools: s.ToolNames(), PermissionMode: string(s.Mode()), Cwd: s.Root(),
	})
}

// Run runs one task (`hew -p`): the init event, the turn and its result.
func (w *Writer) Run(ctx context.Context, s Session, text string) agent.TurnResult {
	w.begin(ctx, s)
	res := s.Submit(ctx, text)
	w.Finish(res)
	return res
}

// Converse holds a conversation with a program (--input-format
// stream-json): first, when not blank, and then each line of in is a user
// message and one turn of the same session, answered by that turn's events
// and a result line; EOF ends it. A line that is not a user message gets an
// error result and the conversation goes on.
//
// It returns the last turn's result (StopCompleted when there was none) and
// an error: an *InputError when the last line was not a user message, the
// error reading in, or ctx's error when it was cancelled.
func (w *Writer) Converse(ctx context.Context, s Session, in io.Reader, first string) (agent.TurnResult, error) {
	w.begin(ctx, s)
	last := agent.TurnResult{StopReason: agent.StopCompleted}
	var lastErr error
	turn := func(text string) {
		last, lastErr = s.Submit(ctx, text), nil
		w.Finish(last)
		w.NextTurn()
	}
	if strings.TrimSpace(first) != "" {
		turn(first)
	}
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go readLines(ctx, in, lines, readErr)
	for {
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case line, ok := <-lines:
			if !ok {
				if err := <-readErr; err != nil {
					return last, err
				}
				return last, lastErr
			}
			if strings.TrimSpace(string(line)) == "" {
				continue
			}
			text, err := parseInputLine(line)
			if err != nil {
				lastErr = &InputError{Reason: err.Error()}
				last = agent.TurnResult{StopReason: agent.StopError, Err: lastErr.Error(), SessionID: s.ID(), CostUSD: -1}
				w.Finish(last)
				w.NextTurn()
				continue
			}
			turn(text)
			if ctx.Err() != nil {
				return last, ctx.Err()
			}
		}
	}
}

// readLines sends in's lines until EOF or until ctx ends; a line over
// maxInputLine is an error.
func readLines(ctx context.Context, in io.Reader, out chan<- []byte, errc chan<- error) {
	defer close(out)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxInputLine)
	for sc.Scan() {
		select {
		case out <- append([]byte(nil), sc.Bytes()...):
		case <-ctx.Done():
			errc <- nil
			return
		}
	}
	errc <- sc.Err()
}
