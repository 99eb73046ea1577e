//go:build unix && !linux

package execx

// kernelStartTime has no cheap source here; startTime asks ps.
func kernelStartTime(int) (string, bool) { return "", false }
