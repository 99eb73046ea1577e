package repl

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// openInEditor runs the user's editor ($VISUAL or $EDITOR, Options.Editor)
// on path and waits for it, with the terminal handed over for that time
// (/memory open).
func (ss *session) openInEditor(path string) error {
	cmdline := strings.TrimSpace(ss.opts.Editor)
	if cmdline == "" {
		return errors.New("set $VISUAL or $EDITOR to open files from hew; the file is " + path)
	}
	t, ok := ss.in.(*ttyReader)
	if !ok {
		return errors.New("no terminal to run the editor in; the file is " + path)
	}
	ss.r.Println(ss.r.Dim("opening " + path + " in " + cmdline + " …"))
	resume := t.suspend()
	defer resume()
	cmd := editorCommand(cmdline, path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return cmd.Run()
}

// editorCommand runs cmdline (which may carry flags, "code -w") with path.
func editorCommand(cmdline, path string) *exec.Cmd {
	if runtime.GOOS == "windows" {
		f := strings.Fields(cmdline)
		return exec.Command(f[0], append(f[1:], path)...)
	}
	return exec.Command("/bin/sh", "-c", cmdline+` "$1"`, "sh", path)
}
