//go:build !unix

package main

import "os"

// maxRSS is unknown on systems without getrusage.
func maxRSS(*os.ProcessState) int64 { return -1 }
