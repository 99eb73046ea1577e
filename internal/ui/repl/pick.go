package repl

import (
	"fmt"
	"io"
	"strings"
	"time"

	sessionfile "github.com/hew-dev/hew/internal/session"
	"github.com/hew-dev/hew/internal/ui/render"
)

// PickSession is the question of a bare `hew --resume` in a terminal: it
// lists the sessions on out, numbered, with their age at now, and reads
// the number of the one to resume from in. ok is false when no listed
// number was typed.
func PickSession(in io.Reader, out io.Writer, list []sessionfile.Info, now func() time.Time) (path string, ok bool) {
	for i, s := range list {
		title := render.Truncate(strings.Join(strings.Fields(s.Title), " "), 60)
		fmt.Fprintf(out, "%2d) %-8s %3d msgs  %s  %s\n", i+1, render.Age(now().Sub(s.Modified)), s.Messages, title, s.ID)
	}
	fmt.Fprint(out, "resume which session? ")
	var n int
	if _, err := fmt.Fscan(in, &n); err != nil || n < 1 || n > len(list) {
		return "", false
	}
	return list[n-1].Path, true
}
