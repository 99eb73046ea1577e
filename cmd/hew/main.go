// Command hew is a terminal coding agent. Everything lives in internal/app;
// this file only hands over the process's arguments, streams and environment.
package main

import (
	"os"

	"github.com/hew-dev/hew/internal/app"
)

func main() {
	os.Exit(app.Main(os.Args, os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}
