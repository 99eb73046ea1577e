package repl

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Limits for @path attachments: a message carries at most maxAttachments
// files of at most maxAttachBytes each, so one keystroke cannot fill the
// context window.
const (
	maxAttachBytes = 256 << 10
	maxAttachments = 10
)

// attachFiles finds "@path" words in msg that name readable text files
// (relative to dir unless absolute) and appends their contents to the
// message, each in an <attached-file> block. The "@path" words stay in the
// text, so the model sees where each file was mentioned. notes say what
// was attached or why not, one line each, for the user.
func attachFiles(msg, dir, home string) (out string, notes []string) {
	var blocks []string
	seen := map[string]bool{}
	for _, word := range strings.Fields(msg) {
		p, ok := strings.CutPrefix(word, "@")
		if !ok || p == "" {
			continue
		}
		path, info := findAttachment(p, dir, home)
		if info == nil || info.IsDir() || seen[path] {
			continue // not a file: an @mention of something else
		}
		seen[path] = true
		name := strings.TrimRight(p, ",.;:!?)")
		if len(blocks) >= maxAttachments {
			notes = append(notes, fmt.Sprintf("not attached %s: at most %d files per message", name, maxAttachments))
			continue
		}
		if !info.Mode().IsRegular() {
			notes = append(notes, "not attached "+name+": not a regular file")
			continue
		}
		if info.Size() > maxAttachBytes {
			notes = append(notes, fmt.Sprintf("not attached %s: %s is over the %d KB limit (ask hew to read parts of it)", name, sizeText(info.Size()), maxAttachBytes>>10))
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			notes = append(notes, "not attached "+name+": "+err.Error())
			continue
		}
		if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			notes = append(notes, "not attached "+name+": not a text file")
			continue
		}
		body := string(data)
		if !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		blocks = append(blocks, fmt.Sprintf("<attached-file path=%q>\n%s</attached-file>", name, body))
		notes = append(notes, fmt.Sprintf("attached %s (%d lines, %s)", name, strings.Count(body, "\n"), sizeText(int64(len(data)))))
	}
	if len(blocks) == 0 {
		return msg, notes
	}
	return msg + "\n\n" + strings.Join(blocks, "\n"), notes
}

// findAttachment resolves p, also without trailing punctuation ("see
// @main.go."), and stats it; info is nil when nothing is there.
func findAttachment(p, dir, home string) (string, os.FileInfo) {
	for _, cand := range []string{p, strings.TrimRight(p, ",.;:!?)")} {
		if cand == "" {
			continue
		}
		path := cand
		if strings.HasPrefix(path, "~/") && home != "" {
			path = filepath.Join(home, path[2:])
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if info, err := os.Stat(path); err == nil {
			return path, info
		}
	}
	return "", nil
}

func sizeText(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}
