package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hew-dev/hew/internal/fsutil"
)

// Shape defaults.
const (
	DefaultPersistOver = 30 * 1024
	DefaultMaxChars    = 50000
	shapeMarkerReserve = 600
)

// ShapeOptions control Shape.
type ShapeOptions struct {
	// StateDir is the per-project state directory; results go to
	// StateDir/tool-results/ID.txt. Empty disables persistence.
	StateDir string
	// ID names the persisted file (the tool call id); empty uses a hash.
	ID string
	// PersistOver is the size in bytes above which the whole result is
	// saved (default 30 KB).
	PersistOver int
	// MaxChars is the most characters the model gets (default 50,000).
	MaxChars int
	// SavedAt is where the whole result already is (streamed by the tool):
	// nothing is saved again and the cut marker points there.
	SavedAt string
}

// Shape prepares a tool result for the model. A result over PersistOver
// bytes is first written whole under StateDir/tool-results; then a result
// over MaxChars characters is cut to its head and tail with a marker saying
// how much was cut and where the rest is (with read_file offset/limit), so
// nothing is lost.
func Shape(content string, opts ShapeOptions) string {
	if opts.PersistOver <= 0 {
		opts.PersistOver = DefaultPersistOver
	}
	if opts.MaxChars <= 0 {
		opts.MaxChars = DefaultMaxChars
	}
	if len(content) <= opts.PersistOver && len(content) <= opts.MaxChars {
		return content
	}
	saved := opts.SavedAt
	var saveErr error
	if saved != "" {
		if len(content) <= opts.MaxChars {
			return content
		}
	} else if len(content) > opts.PersistOver {
		saved, saveErr = persistResult(content, opts)
	}
	n := utf8.RuneCountInString(content)
	if n <= opts.MaxChars {
		if saved != "" {
			return content + fmt.Sprintf("\n\n[full output (%d bytes) also saved to %s]", len(content), saved)
		}
		return content
	}
	budget := max(opts.MaxChars-shapeMarkerReserve, 2)
	headEnd := byteOffsetOfRune(content, budget/2)
	tailStart := byteOffsetOfRune(content, n-(budget-budget/2))
	// Prefer whole lines when a line break is near the cut.
	if i := strings.LastIndexByte(content[:headEnd], '\n'); i >= 0 && headEnd-i < 2000 {
		headEnd = i + 1
	}
	if i := strings.IndexByte(content[tailStart:], '\n'); i >= 0 && i < 2000 && tailStart+i+1 < len(content) {
		tailStart += i + 1
	}
	cutChars := utf8.RuneCountInString(content[headEnd:tailStart])
	firstCut := strings.Count(content[:headEnd], "\n") + 1
	lastCut := strings.Count(content[:tailStart], "\n")
	if tailStart > 0 && content[tailStart-1] != '\n' {
		lastCut++
	}
	totalLines := strings.Count(content, "\n") + 1
	var marker string
	switch {
	case opts.SavedAt != "":
		marker = fmt.Sprintf("[… %d characters cut here. The whole output is saved at %s — search it with grep_search or read it with read_file.]", cutChars, saved)
	case saved != "":
		marker = fmt.Sprintf("[… %d characters cut here (lines %d–%d of %d). The full output is saved at %s — read the missing part with read_file (file_path=%q, offset=%d, limit=%d)",
			cutChars, firstCut, lastCut, totalLines, saved, saved, firstCut, max(lastCut-firstCut+1, 1))
		if cutChars/max(lastCut-firstCut+1, 1) > ReadMaxLineChars {
			marker += "; its lines are very long, so search it with grep_search instead"
		}
		marker += ".]"
	case saveErr != nil:
		marker = fmt.Sprintf("[… %d characters cut here (lines %d–%d of %d); the full output could not be saved: %v]", cutChars, firstCut, lastCut, totalLines, saveErr)
	default:
		marker = fmt.Sprintf("[… %d characters cut here (lines %d–%d of %d); no state directory to save the full output]", cutChars, firstCut, lastCut, totalLines)
	}
	return content[:headEnd] + "\n" + marker + "\n\n" + content[tailStart:]
}

// ResultID names the saved result of one call: session id and call id, so
// two sessions never write the same file.
func ResultID(sessionID, callID string) string {
	if sessionID == "" {
		return callID
	}
	return sessionID + "-" + callID
}

// ToolResultPath is where Shape saves the result with id.
func ToolResultPath(stateDir, id string) string {
	return filepath.Join(stateDir, "tool-results", safeID(id)+".txt")
}

func persistResult(content string, opts ShapeOptions) (string, error) {
	if opts.StateDir == "" {
		return "", nil
	}
	id := opts.ID
	if id == "" {
		sum := sha256.Sum256([]byte(content))
		id = hex.EncodeToString(sum[:8])
	}
	p := ToolResultPath(opts.StateDir, id)
	if err := fsutil.WriteFileAtomic(p, []byte(content), 0o600); err != nil {
		return "", err
	}
	return p, nil
}

// safeID keeps ids usable as file names.
func safeID(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.TrimLeft(b.String(), ".")
	if s == "" {
		s = "result"
	}
	return shorten(s, 120)
}

// byteOffsetOfRune is the byte offset of the n-th rune (clamped).
func byteOffsetOfRune(s string, n int) int {
	if n <= 0 {
		return 0
	}
	i := 0
	for off := range s {
		if i == n {
			return off
		}
		i++
	}
	return len(s)
}
