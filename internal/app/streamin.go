package app

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hew-dev/hew/internal/agent"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/ui/headless"
)

// maxInputLine bounds one stream-json input line (a user message).
const maxInputLine = 10 << 20

// inputMessage is one --input-format stream-json line, Claude Code's shape:
// {"type":"user","message":{"role":"user","content":"…" | [{"type":"text","text":"…"}]}}.
type inputMessage struct {
	Type    string `json:"type"`
	Message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// parseInputLine returns the text of one input line, or why it is not a
// user message.
func parseInputLine(line []byte) (string, error) {
	var m inputMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return "", fmt.Errorf("not a JSON object: %v", err)
	}
	if m.Type != "user" {
		return "", fmt.Errorf(`"type" is %q; only "user" messages are read`, m.Type)
	}
	if m.Message.Role != "" && m.Message.Role != "user" {
		return "", fmt.Errorf(`"message.role" is %q, want "user"`, m.Message.Role)
	}
	var s string
	if json.Unmarshal(m.Message.Content, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return "", errors.New("the message is empty")
		}
		return s, nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Message.Content, &blocks); err != nil {
		return "", errors.New(`"message.content" must be a string or a list of {"type":"text","text":…} blocks`)
	}
	var parts []string
	for _, b := range blocks {
		if b.Type != "text" {
			return "", fmt.Errorf("content blocks of type %q are not supported (only text)", b.Type)
		}
		parts = append(parts, b.Text)
	}
	text := strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" {
		return "", errors.New("the message is empty")
	}
	return text, nil
}

// runStreamInput holds a conversation with a program over stdin/stdout:
// each input line is a user message and one turn of the same session,
// answered by that turn's events and a result line; EOF ends the session.
// A bad line is reported as an error result and the session goes on. The
// exit code is that of the last turn (0 when there was none).
func (a *cli) runStreamInput(o *options, first string) int {
	format, _ := headless.ParseFormat(o.outputFormat)
	w := headless.New(headless.Options{Format: format, Out: a.stdout, Err: a.stderr, Verbose: o.verbose})
	sess, err := a.newSession(o, func(*config.Settings) frontEnd { return frontEnd{emit: w.Handle} })
	if err != nil {
		return a.fail(err)
	}
	defer a.closeSession(sess)
	ctx, stop := signalContext()
	defer stop()
	_ = sess.Prepare(ctx)
	w.Start(headless.Init{
		SessionID: sess.ID(), Model: sess.Model(), Provider: sess.ProviderName(),
		Tools: sess.ToolNames(), PermissionMode: string(sess.Mode()), Cwd: sess.Root(),
	})
	code := ExitOK
	turn := func(text string) {
		res := sess.Submit(ctx, text)
		w.Finish(res)
		w.NextTurn()
		code = exitCode(res)
	}
	if strings.TrimSpace(first) != "" { // a prompt argument is the first message
		turn(first)
	}
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go readLines(a.stdin, lines, readErr)
	for {
		select {
		case <-ctx.Done():
			return ExitInterrupted
		case line, ok := <-lines:
			if !ok {
				if err := <-readErr; err != nil {
					return a.errorf(ExitError, "reading stdin: %v", err)
				}
				return code
			}
			if len(strings.TrimSpace(string(line))) == 0 {
				continue
			}
			text, err := parseInputLine(line)
			if err != nil {
				w.Finish(agent.TurnResult{StopReason: agent.StopError, Err: "input line: " + err.Error(), SessionID: sess.ID(), CostUSD: -1})
				w.NextTurn()
				code = ExitUsage
				continue
			}
			turn(text)
			if ctx.Err() != nil {
				return ExitInterrupted
			}
		}
	}
}

// readLines sends stdin's lines until EOF; a line over maxInputLine is an
// error.
func readLines(r io.Reader, out chan<- []byte, errc chan<- error) {
	defer close(out)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxInputLine)
	for sc.Scan() {
		out <- append([]byte(nil), sc.Bytes()...)
	}
	errc <- sc.Err()
}
