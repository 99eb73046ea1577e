// Package execx runs run_shell commands: bash -c with stdin from /dev/null,
// its own process group, a timeout that kills the whole group, head+tail
// capped output and a prompt return when background processes linger. The
// sandbox wraps a Runner through its Wrap hook.
package execx

import (
	"context"
	"time"

	"github.com/hew-dev/hew/internal/execx/execcore"
	"github.com/hew-dev/hew/internal/tools"
)

// Runner implements tools.ShellRunner on the local machine.
type Runner struct {
	// Wrap, when set, rewrites the argv (["bash","-c",cmd]) before exec;
	// the sandbox uses it to re-exec hew around the shell.
	Wrap func(argv []string) ([]string, error)
	// SandboxNote is copied into every result (e.g. why confinement is off).
	SandboxNote string
	// Guard is the group-guard prefix (DefaultGuard) that makes commands
	// die with hew on Linux; nil runs them directly.
	Guard []string
}

var _ tools.ShellRunner = (*Runner)(nil)

// Run executes req. A command that cannot start returns an error; a
// non-zero exit or a timeout is reported in the result. When ctx is
// cancelled the process group is killed and ctx's error is returned along
// with the partial result.
func (r *Runner) Run(ctx context.Context, req tools.ShellRequest) (tools.ShellResult, error) {
	res, err := execcore.Run(ctx, execcore.Options{
		Command:    req.Command,
		Dir:        req.Dir,
		Env:        req.Env,
		Timeout:    time.Duration(req.TimeoutMS) * time.Millisecond,
		MaxOutput:  req.MaxOutput,
		Wrap:       r.Wrap,
		OutputFile: req.OutputFile,
		Guard:      r.Guard,
	})
	return tools.ShellResult{
		Output:      res.Output,
		ExitCode:    res.ExitCode,
		TimedOut:    res.TimedOut,
		Truncated:   res.Truncated,
		SandboxNote: r.SandboxNote,
		Total:       res.Total,
		SaveErr:     res.SaveErr,
	}, err
}
