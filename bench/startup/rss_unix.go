//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is the child's peak resident set in KiB (-1 when unknown).
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return -1
	}
	if runtime.GOOS == "darwin" { // bytes there, KiB on Linux
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
