package execx

import (
	"errors"
	"os/exec"
	"runtime"
	"unicode/utf8"
)

// ShellArgv is the argv that runs command: bash -c, or sh -c when bash is
// missing; on Windows bash (Git Bash, WSL shim) when present, else cmd /C.
func ShellArgv(command string) ([]string, error) {
	if command == "" {
		return nil, errors.New("empty command")
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return []string{p, "-c", command}, nil
	}
	if runtime.GOOS == "windows" {
		return []string{"cmd.exe", "/C", command}, nil
	}
	if p, err := exec.LookPath("sh"); err == nil {
		return []string{p, "-c", command}, nil
	}
	return nil, errors.New("no shell found: neither bash nor sh is on PATH")
}

// CutValidUTF8 drops a rune split at the end of head or the start of tail.
func CutValidUTF8(head, tail string) (string, string) {
	for i := 0; i < utf8.UTFMax && len(head) > 0; i++ {
		r, size := utf8.DecodeLastRuneInString(head)
		if r != utf8.RuneError || size != 1 {
			break
		}
		head = head[:len(head)-1]
	}
	for i := 0; i < utf8.UTFMax && len(tail) > 0; i++ {
		if utf8.RuneStart(tail[0]) {
			break
		}
		tail = tail[1:]
	}
	return head, tail
}
