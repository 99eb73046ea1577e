// Package mockserver is `hew mock-server`: internal/llm/mockserver's
// offline model server on a port, until the caller's context ends.
package mockserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/hew-dev/hew/internal/llm/mockserver"
	"github.com/hew-dev/hew/internal/llm/scenario"
)

const usage = `usage: hew mock-server --scenario FILE [--addr 127.0.0.1:0] [--quiet]

Serves the Anthropic Messages API (POST /v1/messages) and the OpenAI Chat
Completions API (POST /v1/chat/completions), streaming and not, from a
scenario file (SPEC section 7). Prints its base address on the first line,
then serves until interrupted. Point hew at it with
  ANTHROPIC_BASE_URL=ADDR  or  OPENAI_BASE_URL=ADDR/v1
Without --scenario it answers the mock's plain intents (read FILE, list
files, search WORD, run ` + "`CMD`" + `, replace "A" with "B" in FILE).

Flags:
`

// Options is what the command needs. Context ends the server: the caller
// cancels it on an interrupt (it must catch signals before Run, so an
// interrupt right after the address is printed is handled, not fatal).
type Options struct {
	Stdout, Stderr io.Writer
	Context        context.Context
}

// Run is `hew mock-server`. It returns the process exit code: 0 once the
// context ends, 2 for bad usage or a bad scenario, 1 when it cannot listen.
func Run(o Options, args []string) int {
	stdout, stderr := o.Stdout, o.Stderr
	fs := flag.NewFlagSet("mock-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("scenario", "", "scenario file (JSON, SPEC section 7)")
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	quiet := fs.Bool("quiet", false, "do not log requests on stderr")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hew mock-server: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	var sc *scenario.Scenario
	if *path != "" {
		var err error
		if sc, err = scenario.Load(*path); err != nil {
			fmt.Fprintf(stderr, "hew mock-server: %v\n", err)
			return 2
		}
	}
	srv, err := mockserver.Start(sc, *addr)
	if err != nil {
		fmt.Fprintf(stderr, "hew %v\n", err)
		return 1
	}
	if !*quiet {
		srv.Log = stderr
	}
	fmt.Fprintln(stdout, srv.URL())
	<-o.Context.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if v := srv.Violations(); len(v) > 0 {
		fmt.Fprintf(stderr, "hew mock-server: %d invalid request(s) received:\n", len(v))
		for _, s := range v {
			fmt.Fprintln(stderr, "  "+s)
		}
	}
	return 0
}
