//go:build !unix

package compact_test

// peakRSS is unknown on this platform; the benchmark then reports no figure.
func peakRSS() int64 { return 0 }
