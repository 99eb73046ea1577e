package repl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxHistory is how many entries are loaded from the history file.
const maxHistory = 2000

// history is the input history: the entries of earlier sessions read from
// $HEW_HOME/history, and this session's lines appended to it as typed.
// The file holds one JSON object per line ({"datetime","block"}, the format
// the previous editor wrote, so old history keeps working); each line is
// appended in a single write, so two hew processes never garble it.
type history struct {
	entries []string
	file    string
}

type historyLine struct {
	DateTime time.Time `json:"datetime"`
	Block    string    `json:"block"`
}

// loadHistory reads file (missing is fine); an empty name keeps history
// in memory.
func loadHistory(file string) (*history, error) {
	h := &history{file: file}
	if file == "" {
		return h, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		h.file = ""
		return h, fmt.Errorf("history not kept: %w", err)
	}
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("history not read: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		var l historyLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || strings.TrimSpace(l.Block) == "" {
			continue
		}
		h.entries = append(h.entries, l.Block)
	}
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	return h, nil
}

// add records a sent line (not blanks, not a repeat of the last one).
func (h *history) add(line string) {
	if strings.TrimSpace(line) == "" || len(h.entries) > 0 && h.entries[len(h.entries)-1] == line {
		return
	}
	h.entries = append(h.entries, line)
	if h.file == "" {
		return
	}
	b, err := json.Marshal(historyLine{DateTime: time.Now().UTC(), Block: line})
	if err != nil {
		return
	}
	f, err := os.OpenFile(h.file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	_, _ = f.Write(append(b, '\n'))
	_ = f.Close()
}

// search finds the newest entry at or before index from containing q
// (case-insensitive), or -1.
func (h *history) search(q string, from int) int {
	q = strings.ToLower(q)
	for i := min(from, len(h.entries)-1); i >= 0; i-- {
		if strings.Contains(strings.ToLower(h.entries[i]), q) {
			return i
		}
	}
	return -1
}

// startSearch begins a Ctrl+R search of the history.
func (e *editor) startSearch() {
	if e.hist == nil {
		return
	}
	e.searching, e.query, e.found = true, nil, -1
	e.saved = append([]rune(nil), e.buf...)
}

// searchKey handles a key during Ctrl+R search. It returns true when the
// key ends the search and should then be handled as usual (Enter sends the
// match; arrows and the like edit it).
func (e *editor) searchKey(k key) bool {
	switch {
	case k.kind == kRune || k.kind == kPaste:
		if k.kind == kRune {
			e.query = append(e.query, k.r)
		} else {
			e.query = append(e.query, []rune(k.text)...)
		}
		e.found = e.hist.search(string(e.query), len(e.hist.entries)-1)
	case k.kind == kBackspace:
		if len(e.query) > 0 {
			e.query = e.query[:len(e.query)-1]
		}
		e.found = -1
		if len(e.query) > 0 {
			e.found = e.hist.search(string(e.query), len(e.hist.entries)-1)
		}
	case k.kind == kCtrl && k.r == 'r':
		if e.found > 0 {
			if i := e.hist.search(string(e.query), e.found-1); i >= 0 {
				e.found = i
			}
		}
	case k.kind == kEsc || k.kind == kCtrl && (k.r == 'g' || k.r == 'c'):
		e.searching = false
		e.buf = e.saved
		e.pos = len(e.buf)
		if k.r == 'c' {
			return true
		}
	default:
		e.searching = false
		if e.found >= 0 {
			e.buf = []rune(e.hist.entries[e.found])
			e.pos = len(e.buf)
		}
		return true
	}
	e.draw()
	return false
}

// searchView is what the prompt shows during a search.
func (e *editor) searchView() (prompt string, buf []rune, pos int) {
	label := "search: " + string(e.query)
	if e.found < 0 && len(e.query) > 0 {
		label += " (no match)"
	}
	prompt = label + " › "
	if e.found >= 0 {
		buf = []rune(e.hist.entries[e.found])
	}
	return prompt, buf, len(buf)
}
