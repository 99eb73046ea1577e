package execx

import (
	"os"
	"strconv"
	"strings"
)

// kernelStartTime is a process's start time in clock ticks since boot
// (field 22 of /proc/PID/stat), read without spawning ps.
func kernelStartTime(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return "", false
	}
	f := strings.Fields(string(b)[i+1:])
	if len(f) < 20 { // fields 3.. after the name; starttime is field 22
		return "", false
	}
	return "ticks " + f[19], true
}
