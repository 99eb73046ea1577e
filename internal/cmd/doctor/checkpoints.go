package doctor

import "github.com/hew-dev/hew/internal/config"

// checkCheckpoints reports the checkpoint store: kind, size and limits.
func checkCheckpoints(r *doctorReport, opts Options, s *config.Settings) {
	if opts.Checkpoints == nil {
		return
	}
	st := opts.Checkpoints(s)
	if st == nil {
		r.ok("checkpoints: off (checkpoints.enabled is false, or hew runs in the home directory or a file-system root): /undo has nothing to take back")
		return
	}
	size, _ := st.Size()
	what := "git store: every change, shell included"
	if st.Kind() == "copy" {
		what = "copy store (git not found): changes by the file tools only"
	}
	r.ok("checkpoints: %s, %.1f MB in %s (pruned past %d days or %d MB)", what, float64(size)/(1<<20), st.Dir(), s.Checkpoints.MaxAgeDays, s.Checkpoints.MaxSizeMB)
}
