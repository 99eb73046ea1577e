package checkpoint

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hew-dev/hew/internal/config"
)

// A project gets a store unless the settings turn checkpoints off or it
// is the home directory or a file-system root; the settings bound it.
func TestForProject(t *testing.T) {
	root, home := realDir(t), realDir(t)
	off := config.Default()
	off.Checkpoints.Enabled = false
	small := config.Default()
	small.Checkpoints.MaxAgeDays, small.Checkpoints.MaxSizeMB = 2, 3
	for _, tc := range []struct {
		name    string
		root    string
		s       *config.Settings
		want    bool
		age     time.Duration
		maxSize int64
	}{
		{"defaults", root, nil, true, DefaultMaxAge, DefaultMaxBytes},
		{"settings bound it", root, small, true, 48 * time.Hour, 3 << 20},
		{"turned off", root, off, false, 0, 0},
		{"home directory", home, nil, false, 0, 0},
		{"file-system root", string(filepath.Separator), nil, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := ForProject(Options{Root: tc.root, StateDir: filepath.Join(realDir(t), "state")}, home, tc.s)
			if (st != nil) != tc.want {
				t.Fatalf("store %v, want one: %v", st, tc.want)
			}
			if st != nil && (st.opts.MaxAge != tc.age || st.opts.MaxBytes != tc.maxSize || st.Kind() != "copy") {
				t.Errorf("age %v size %d kind %s, want %v %d copy", st.opts.MaxAge, st.opts.MaxBytes, st.Kind(), tc.age, tc.maxSize)
			}
		})
	}
}
