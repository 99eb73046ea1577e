//go:build !unix

package execx

// track records nothing here: taskkill /T ends a command's tree while hew
// lives, and there is no process group to find again later.
func track(string, int) func() { return func() {} }

// ReapOrphans has nothing to reap where nothing is recorded.
func ReapOrphans(string) int { return 0 }

// TrackDir is "": nothing is recorded on this system.
func TrackDir(string) string { return "" }

// HasOrphanRecords is false: nothing is recorded on this system.
func HasOrphanRecords(string) bool { return false }
