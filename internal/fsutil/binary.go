package fsutil

import (
	"bytes"
	"io"
	"os"
	"unicode/utf8"
)

// SniffLen is how many leading bytes binary detection looks at.
const SniffLen = 8192

// IsBinary reports whether data (the start of a file) looks binary: a NUL
// byte, or mostly invalid UTF-8 / control characters. Text in any UTF-8
// script, with tabs, CR and form feeds, is not binary.
func IsBinary(data []byte) bool {
	if len(data) > SniffLen {
		data = data[:SniffLen]
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	bad := 0
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			if len(data)-i < utf8.UTFMax && !utf8.FullRune(data[i:]) {
				break // a rune cut by the sniff window
			}
			bad++
		} else if r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' && r != '\v' && r != 0x1b {
			bad++
		}
		i += size
	}
	return bad*10 > len(data) // more than 10% suspicious bytes
}

// FileIsBinary sniffs the start of the file at path.
func FileIsBinary(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, SniffLen)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, err
	}
	return IsBinary(buf[:n]), nil
}
