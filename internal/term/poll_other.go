//go:build !unix

package term

// waitReadable cannot poll a console here; it reports input as ready, so
// ReadKey blocks in Read and only sees ctx between keys.
func waitReadable(fd, ms int) (bool, error) { return true, nil }
