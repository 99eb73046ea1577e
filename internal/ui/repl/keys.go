package repl

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// keyKind is what a key does, independent of the bytes a terminal sends.
type keyKind int

const (
	kNone      keyKind = iota
	kRune              // a typed character (r)
	kEnter             // Enter: send the line
	kNewline           // Ctrl+J, Alt+Enter, Shift+Enter: a newline in the line
	kTab               // complete
	kShiftTab          // cycle the permission mode
	kBackspace         // delete the grapheme before the cursor
	kDelete            // delete the grapheme under the cursor
	kLeft
	kRight
	kUp
	kDown
	kHome
	kEnd
	kWordLeft   // Ctrl+Left, Alt+B
	kWordRight  // Ctrl+Right, Alt+F
	kWordDelete // Alt+Backspace
	kCtrl       // Ctrl+letter (r is the lower-case letter)
	kEsc        // Esc on its own
	kPaste      // a bracketed paste (text)
	kEOF        // input ended
)

// key is one decoded keypress (or paste).
type key struct {
	kind keyKind
	r    rune
	text string
}

func ctrl(c rune) key { return key{kind: kCtrl, r: c} }

// isStop reports whether k stops a running turn: Esc or Ctrl+C.
func (k key) isStop() bool { return k.kind == kEsc || k.kind == kCtrl && k.r == 'c' }

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// decodeKey reads one key from the start of b and returns it with the
// number of bytes it used. n == 0 means b holds only the start of a key
// (an escape sequence, a UTF-8 character, a paste) and more bytes should be
// awaited; with final set (no more bytes came in time) a lone Esc is Esc
// and an unfinished sequence is dropped.
func decodeKey(b []byte, final bool) (key, int) {
	if len(b) == 0 {
		return key{}, 0
	}
	c := b[0]
	switch {
	case c == 0x1b:
		return decodeEscape(b, final)
	case c == '\r':
		return key{kind: kEnter}, 1
	case c == '\n':
		return key{kind: kNewline}, 1
	case c == '\t':
		return key{kind: kTab}, 1
	case c == 0x7f || c == 0x08:
		return key{kind: kBackspace}, 1
	case c >= 1 && c <= 26:
		return ctrl(rune('a' + c - 1)), 1
	case c < 0x20:
		return key{}, 1 // Ctrl+@, Ctrl+\ and friends do nothing
	case c < 0x80:
		return key{kind: kRune, r: rune(c)}, 1
	}
	if !utf8.FullRune(b) {
		if final {
			return key{}, len(b)
		}
		return key{}, 0
	}
	r, n := utf8.DecodeRune(b)
	if r == utf8.RuneError {
		return key{}, n
	}
	return key{kind: kRune, r: r}, n
}

func decodeEscape(b []byte, final bool) (key, int) {
	if len(b) == 1 {
		if final {
			return key{kind: kEsc}, 1
		}
		return key{}, 0
	}
	switch b[1] {
	case '[':
		return decodeCSI(b, final)
	case 'O': // SS3: arrows and Home/End in application mode
		if len(b) < 3 {
			if final {
				return key{kind: kEsc}, 1
			}
			return key{}, 0
		}
		return ss3Key(b[2]), 3
	case '\r', '\n':
		return key{kind: kNewline}, 2
	case 0x7f, 0x08:
		return key{kind: kWordDelete}, 2
	case 'b', 'B':
		return key{kind: kWordLeft}, 2
	case 'f', 'F':
		return key{kind: kWordRight}, 2
	case 'd':
		return ctrl('k'), 2 // Alt+D: close enough to kill-word for a prompt
	case 0x1b:
		return key{kind: kEsc}, 1 // Esc Esc: the first is an Esc
	}
	if b[1] < 0x20 || b[1] >= 0x80 {
		return key{kind: kEsc}, 1
	}
	return key{}, 2 // Alt+other letter: nothing
}

func ss3Key(c byte) key {
	switch c {
	case 'A':
		return key{kind: kUp}
	case 'B':
		return key{kind: kDown}
	case 'C':
		return key{kind: kRight}
	case 'D':
		return key{kind: kLeft}
	case 'H':
		return key{kind: kHome}
	case 'F':
		return key{kind: kEnd}
	case 'M':
		return key{kind: kEnter}
	}
	return key{}
}

// decodeCSI reads "ESC [ params final", and a whole bracketed paste.
func decodeCSI(b []byte, final bool) (key, int) {
	if bytes.HasPrefix(b, []byte(pasteStart)) {
		end := bytes.Index(b, []byte(pasteEnd))
		if end < 0 {
			return key{}, 0 // a paste always ends; wait for it
		}
		text := string(b[len(pasteStart):end])
		text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
		return key{kind: kPaste, text: text}, end + len(pasteEnd)
	}
	i := 2
	for i < len(b) && b[i] >= 0x30 && b[i] <= 0x3f {
		i++
	}
	for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
		i++
	}
	if i >= len(b) {
		if final || len(b) >= 64 {
			return key{}, len(b) // unfinished or runaway: dropped
		}
		return key{}, 0
	}
	params, fin := string(b[2:i]), b[i]
	n := i + 1
	mod := ""
	if p, m, ok := strings.Cut(params, ";"); ok {
		params, mod = p, m
	}
	switch fin {
	case 'A', 'B', 'C', 'D', 'H', 'F':
		k := ss3Key(fin)
		if mod == "5" || mod == "3" { // Ctrl or Alt with an arrow
			switch fin {
			case 'C':
				k = key{kind: kWordRight}
			case 'D':
				k = key{kind: kWordLeft}
			}
		}
		return k, n
	case 'Z':
		return key{kind: kShiftTab}, n
	case 'u': // CSI u (fixterms / kitty): 13;2u is Shift+Enter
		if params == "13" && mod != "" && mod != "1" {
			return key{kind: kNewline}, n
		}
		return key{}, n
	case '~':
		switch params {
		case "1", "7":
			return key{kind: kHome}, n
		case "4", "8":
			return key{kind: kEnd}, n
		case "3":
			return key{kind: kDelete}, n
		case "27": // xterm modifyOtherKeys: 27;2;13~ is Shift+Enter
			if strings.HasSuffix(mod, ";13") {
				return key{kind: kNewline}, n
			}
		}
		return key{}, n
	}
	return key{}, n // focus reports, mouse and other keys do nothing
}

// escWait is how long a lone Esc waits for the rest of an escape sequence.
// A terminal sends a sequence in one write, so this only has to outlast the
// time between two reads of one write.
const escWait = 40 * time.Millisecond

// keyboard decodes terminal input into keys on its own goroutine, for the
// whole session: the prompt, a running turn (Esc, Ctrl+C, type-ahead) and
// approval questions all take keys from it, so no byte is lost between them.
type keyboard struct {
	ended atomic.Bool // input ended: every later wait returns io.EOF
	keys  chan key
	stop  chan struct{}
	done  chan struct{}
}

// startKeyboard reads with read (which waits at most the given time and
// returns 0 bytes on a timeout) until stopped or input ends.
func startKeyboard(read func([]byte, time.Duration) (int, error)) *keyboard {
	kb := &keyboard{keys: make(chan key, 256), stop: make(chan struct{}), done: make(chan struct{})}
	go kb.run(read)
	return kb
}

func (kb *keyboard) run(read func([]byte, time.Duration) (int, error)) {
	defer close(kb.done)
	var pending []byte
	buf := make([]byte, 4096)
	for {
		select {
		case <-kb.stop:
			return
		default:
		}
		wait := 100 * time.Millisecond
		if len(pending) > 0 {
			wait = escWait
		}
		n, err := read(buf, wait)
		if err != nil { // input ended or the terminal went away
			kb.send(key{kind: kEOF})
			return
		}
		pending = append(pending, buf[:n]...)
		final := n == 0 && !bytes.HasPrefix(pending, []byte(pasteStart))
		for len(pending) > 0 {
			k, used := decodeKey(pending, final)
			if used == 0 {
				break
			}
			pending = pending[used:]
			if k.kind != kNone && !kb.send(k) {
				return
			}
		}
	}
}

func (kb *keyboard) send(k key) bool {
	select {
	case kb.keys <- k:
		return true
	case <-kb.stop:
		return false
	}
}

// next waits for the next key.
func (kb *keyboard) next(ctx context.Context) (key, error) {
	if kb.ended.Load() {
		return key{kind: kEOF}, io.EOF
	}
	select {
	case k := <-kb.keys:
		if k.kind == kEOF {
			kb.ended.Store(true)
			return k, io.EOF
		}
		return k, nil
	case <-ctx.Done():
		return key{}, ctx.Err()
	}
}

// close stops the reader and waits for it.
func (kb *keyboard) close() {
	close(kb.stop)
	<-kb.done
}
