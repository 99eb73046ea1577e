package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hew-dev/hew/internal/execx"
)

// RunShell is the run_shell tool.
type RunShell struct{ Spec }

var runShellSpec = builtin("run_shell", `{
 "type": "object",
 "properties": {
  "command": {"type": "string", "description": "The bash command to run"},
  "timeout": {"type": "integer", "minimum": 1, "maximum": 600000, "description": "Timeout in milliseconds (default 120000, max 600000)"},
  "description": {"type": "string", "description": "A few words saying what the command does"}
 },
 "required": ["command"],
 "additionalProperties": false
}`)

type runShellInput struct {
	Command     string `json:"command"`
	Timeout     int    `json:"timeout"`
	Description string `json:"description"`
}

// ReadOnly implements Tool.
func (RunShell) ReadOnly(json.RawMessage) bool { return false }

// Explores implements Explorer: a read-only agent runs in plan mode,
// where only read-only commands pass.
func (RunShell) Explores() bool { return true }

// SelfTimed implements SelfTimed: the command has its own timeout
// (the timeout field, bounded by the shell runner).
func (RunShell) SelfTimed() bool { return true }

// Check refuses an empty command.
func (RunShell) Check(env *Env, input json.RawMessage) error {
	in, err := decode[runShellInput](input)
	if err != nil {
		return err
	}
	if strings.TrimSpace(in.Command) == "" {
		return errors.New("run_shell: command is empty; give the shell command to run")
	}
	return nil
}

// StreamedHeadTail is how much of a streamed command's output stays in
// memory for the model (head and tail); the whole output goes to the
// result file as it is produced, so memory stays bounded at any size.
const StreamedHeadTail = 32 * 1024

var shellSeq atomic.Int64

// shellOutputFile is where a command's whole output is streamed: unique
// per session and call, so neither two sessions nor two calls share one.
func shellOutputFile(ctx context.Context, env *Env) string {
	if env == nil || env.StateDir == "" {
		return ""
	}
	id := CallID(ctx)
	if id == "" {
		id = fmt.Sprintf("shell-%d-%d", time.Now().UnixNano(), shellSeq.Add(1))
	}
	return ToolResultPath(env.StateDir, ResultID(env.SessionID, id))
}

// Run executes the command through env.Shell in the project root.
func (RunShell) Run(ctx context.Context, env *Env, input json.RawMessage) (Result, error) {
	in, err := decode[runShellInput](input)
	if err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(in.Command) == "" {
		return Result{}, errors.New("run_shell: command is empty")
	}
	var shell ShellRunner = &execx.Runner{} // no runner given: unconfined
	req := ShellRequest{Command: in.Command, TimeoutMS: in.Timeout}
	if env != nil {
		if env.Shell != nil {
			shell = env.Shell
		}
		req.Dir, req.Env = env.Root, env.Env
	}
	timeout := execx.EffectiveTimeout(time.Duration(in.Timeout) * time.Millisecond)
	req.TimeoutMS = int(timeout / time.Millisecond)
	if req.OutputFile = shellOutputFile(ctx, env); req.OutputFile != "" {
		req.MaxOutput = StreamedHeadTail
	}
	res, err := shell.Run(ctx, req)
	savedAt := ""
	if req.OutputFile != "" {
		if res.Truncated > 0 && res.SaveErr == nil {
			savedAt = req.OutputFile
		} else {
			_ = os.Remove(req.OutputFile)
		}
	}
	if err != nil && ctx.Err() == nil {
		return Result{}, fmt.Errorf("run_shell: %w", err)
	}
	var b strings.Builder
	out := strings.TrimRight(res.Output, "\n")
	if out != "" {
		b.WriteString(out)
		b.WriteString("\n")
	}
	switch {
	case savedAt != "":
		fmt.Fprintf(&b, "[the whole output (%d bytes) is saved at %s; the middle part above was left out here — read it with read_file (file_path=%q%s) or search it with grep_search]\n",
			res.Total, savedAt, savedAt, cutOffsetNote(out))
	case res.Truncated > 0 && res.SaveErr != nil:
		fmt.Fprintf(&b, "[%d bytes cut from the middle of the output; saving the whole output failed: %v]\n", res.Truncated, res.SaveErr)
	case res.Truncated > 0 && !strings.Contains(out, "bytes of output cut"):
		fmt.Fprintf(&b, "[%d bytes cut from the middle of the output]\n", res.Truncated)
	}
	isErr := res.ExitCode != 0
	switch {
	case ctx.Err() != nil:
		b.WriteString("command aborted by the user (process group killed)")
		isErr = true
	case res.TimedOut:
		fmt.Fprintf(&b, "command timed out after %s and was killed (with its process group); raise timeout (max 600000 ms) or split the work into shorter commands", timeout)
		isErr = true
	default:
		fmt.Fprintf(&b, "exit code %d", res.ExitCode)
	}
	if res.SandboxNote != "" {
		b.WriteString("\n[" + res.SandboxNote + "]")
	}
	return Result{Content: b.String(), IsError: isErr, SavedAt: savedAt, Network: res.Network, Denials: res.Denials}, nil
}

// cutMarker is the line the runner puts where it left output out.
const cutMarker = "\n[… "

// cutOffsetNote locates the left-out part in the saved file: the head
// shown has h line breaks, so the missing part starts in line h+1.
func cutOffsetNote(out string) string {
	i := strings.Index(out, cutMarker)
	if i < 0 {
		return ""
	}
	return fmt.Sprintf(", offset=%d", strings.Count(out[:i], "\n")+1)
}

// Summary implements Summarizer: the command.
func (RunShell) Summary(input json.RawMessage) string { return Field(input, "command") }

// Subject implements Subjecter: the exact command.
func (RunShell) Subject(input json.RawMessage) string { return Field(input, "command") }
