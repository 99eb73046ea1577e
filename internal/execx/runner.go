// Package execx runs run_shell commands: bash -c with stdin from /dev/null,
// its own process group, a timeout that kills the whole group, head+tail
// capped output and a prompt return when background processes linger. The
// sandbox wraps a Runner through its Wrap hook. It is a utility package: it
// speaks callenv and imports no domain package.
package execx

import (
	"context"
	"time"

	"github.com/hew-dev/hew/internal/callenv"
)

// Runner implements callenv.ShellRunner on the local machine.
type Runner struct {
	// Wrap, when set, rewrites the argv (["bash","-c",cmd]) before exec;
	// the sandbox uses it to re-exec hew around the shell.
	Wrap func(argv []string) ([]string, error)
	// SandboxNote is copied into every result (e.g. why confinement is off).
	SandboxNote string
	// Guard is the group-guard prefix (DefaultGuard) that makes commands
	// die with hew on Linux; nil runs them directly.
	Guard []string
	// Track is where running process groups are recorded for ReapOrphans
	// (TrackDir); empty records nothing. Needed where there is no guard,
	// and behind it for when the guard is killed with hew.
	Track string
}

var _ callenv.ShellRunner = (*Runner)(nil)

// Run executes req. A command that cannot start returns an error; a
// non-zero exit or a timeout is reported in the result. When ctx is
// cancelled the process group is killed and ctx's error is returned along
// with the partial result.
func (r *Runner) Run(ctx context.Context, req callenv.ShellRequest) (callenv.ShellResult, error) {
	res, err := runCommand(ctx, runOptions{
		Command:    req.Command,
		Dir:        req.Dir,
		Env:        req.Env,
		Timeout:    time.Duration(req.TimeoutMS) * time.Millisecond,
		MaxOutput:  req.MaxOutput,
		Wrap:       r.Wrap,
		OutputFile: req.OutputFile,
		Guard:      r.Guard,
		Track:      r.Track,
	})
	return callenv.ShellResult{
		Output:      res.Output,
		ExitCode:    res.ExitCode,
		TimedOut:    res.TimedOut,
		Truncated:   res.Truncated,
		SandboxNote: r.SandboxNote,
		Total:       res.Total,
		SaveErr:     res.SaveErr,
	}, err
}
