// Package plan is plan mode's domain: the user's answers to a finished
// plan (Choice, asked by a Decider the front-end provides) and the plan
// files under $HEW_HOME/plans. The model's two tools, enter_plan_mode and
// exit_plan_mode, are internal/tools/plan.
package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/hew-dev/hew/internal/fsutil"
)

// Choice is the user's answer to a finished plan.
type Choice string

// The four answers to a plan (seed 001, Plan Mode).
const (
	// ChoiceClearAndExecute drops the exploration from the context and
	// carries the plan out in a fresh conversation.
	ChoiceClearAndExecute Choice = "clear-and-execute"
	// ChoiceExecute carries the plan out in the current conversation.
	ChoiceExecute Choice = "execute"
	// ChoiceKeepPlan saves the plan only: the user carries it out.
	ChoiceKeepPlan Choice = "keep-plan"
	// ChoiceKeepPlanning stays in plan mode to refine the plan.
	ChoiceKeepPlanning Choice = "keep-planning"
)

// Decider asks the user about the plan saved at path; feedback is what the
// user typed along with ChoiceKeepPlanning (may be empty).
type Decider func(ctx context.Context, plan, path string) (c Choice, feedback string)

// Save writes the plan atomically to dir/<date>-<slug>.md, dated now,
// choosing a free name when that one is taken, and returns the path.
func Save(dir string, now time.Time, plan string) (string, error) {
	if dir == "" {
		return "", errors.New("no plans directory configured")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create plans directory: %w", err)
	}
	base := now.Format("2006-01-02") + "-" + Slug(plan)
	path := filepath.Join(dir, base+".md")
	for n := 2; ; n++ {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			break
		}
		path = filepath.Join(dir, fmt.Sprintf("%s-%d.md", base, n))
	}
	data := []byte(strings.TrimSpace(plan) + "\n")
	if err := fsutil.WriteFileAtomic(path, data, 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// maxSlug bounds the name part of a plan file.
const maxSlug = 48

// Slug names a plan after its first non-empty line (a heading, usually):
// lower-case ASCII letters and digits joined by hyphens, "plan" when
// nothing usable is left.
func Slug(plan string) string {
	var first string
	for _, l := range strings.Split(plan, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#>*-+ \t"))
		if l != "" {
			first = l
			break
		}
	}
	first = strings.TrimPrefix(strings.ToLower(first), "plan:")
	var b bytes.Buffer
	hyphen := false
	for _, r := range first {
		if r >= unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			hyphen = b.Len() > 0
			continue
		}
		if hyphen {
			b.WriteByte('-')
			hyphen = false
		}
		b.WriteRune(r)
	}
	if b.Len() > maxSlug {
		cut := b.Bytes()[:maxSlug]
		if i := bytes.LastIndexByte(cut, '-'); i > 0 {
			cut = cut[:i]
		}
		b.Truncate(len(cut))
	}
	if b.Len() == 0 {
		return "plan"
	}
	return b.String()
}
