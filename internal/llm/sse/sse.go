// Package sse reads and writes Server-Sent Events, the framing both model
// protocols stream in. It is small on purpose: event and data lines,
// multi-line data, comments, a line-size limit, and nothing else.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DefaultMaxLine bounds one line so a broken server cannot make hew buffer
// without end. Real chunks are a few KB; a whole tool input can reach ~1 MB.
const DefaultMaxLine = 4 << 20

// ErrLineTooLong is returned when a line exceeds the reader's limit.
var ErrLineTooLong = errors.New("sse: line too long")

// Event is one dispatched event. Data joins multiple data lines with "\n".
type Event struct {
	Type string
	Data string
	ID   string
}

// Done reports whether e is the OpenAI-style "[DONE]" terminator.
func (e Event) Done() bool { return e.Data == "[DONE]" }

// Reader splits a byte stream into events. Bytes are gathered per line before
// conversion, so a multi-byte character split across network reads survives.
type Reader struct {
	r       *bufio.Reader
	max     int
	line    []byte
	data    []byte
	id      string
	started bool
}

// NewReader reads events from r; maxLine <= 0 means DefaultMaxLine.
func NewReader(r io.Reader, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &Reader{r: bufio.NewReaderSize(r, 32<<10), max: maxLine}
}

// readLine returns the next line without its terminator (\n or \r\n).
func (r *Reader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	for {
		chunk, err := r.r.ReadSlice('\n')
		if len(r.line)+len(chunk) > r.max+2 {
			return nil, fmt.Errorf("%w (over %d bytes)", ErrLineTooLong, r.max)
		}
		r.line = append(r.line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if len(r.line) > 0 && err == io.EOF {
				return r.line, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		break
	}
	l := r.line[:len(r.line)-1]
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	return l, nil
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// a stream that stops inside a line returns io.ErrUnexpectedEOF. Whether a
// stream ended early is for the protocol to judge (message_stop, [DONE]).
func (r *Reader) Next() (Event, error) {
	typ, data, err := r.NextRaw()
	if err != nil {
		return Event{}, err
	}
	return Event{Type: typ, Data: string(data), ID: r.id}, nil
}

// NextRaw is Next without copying the data: it stays valid only until the
// next call. Decoders that parse the data at once use it to save a copy.
func (r *Reader) NextRaw() (typ string, data []byte, err error) {
	r.data = r.data[:0]
	r.id = ""
	hasData := false
	for {
		line, err := r.readLine()
		if err == io.ErrUnexpectedEOF && len(line) > 0 {
			// A last line without terminator: the event was not finished.
			return "", nil, io.ErrUnexpectedEOF
		}
		if err != nil {
			if err == io.EOF && hasData {
				// Whole lines but no closing blank line: servers that end
				// with "data: [DONE]\n" still mean it.
				return typ, r.data, nil
			}
			return "", nil, err
		}
		if !r.started {
			r.started = true
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // BOM
		}
		if len(line) == 0 {
			if hasData {
				return typ, r.data, nil
			}
			typ, r.id = "", "" // an event with no data is ignored, as the spec says
			continue
		}
		if line[0] == ':' { // comment / keep-alive
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "event":
			typ = string(value)
		case "data":
			if hasData {
				r.data = append(r.data, '\n')
			}
			r.data = append(r.data, value...)
			hasData = true
		case "id":
			r.id = string(value)
		}
	}
}

// Write sends one event: an optional event line, then data split into lines.
func Write(w io.Writer, event, data string) error {
	var b strings.Builder
	if event != "" {
		b.WriteString("event: ")
		b.WriteString(event)
		b.WriteByte('\n')
	}
	for _, l := range strings.Split(data, "\n") {
		b.WriteString("data: ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}
