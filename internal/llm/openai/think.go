package openai

import "strings"

// thinkSplitter separates a leading <think>…</think> section of streamed
// content from the answer text. Tags may be split across chunks, so it holds
// back only the bytes that could still be the start of a tag.
type thinkSplitter struct {
	state   int // 0: before any text, 1: inside <think>, 2: plain text
	pending string
	// trim drops the newlines that follow </think>, even in a later chunk.
	trim bool
}

const (
	openTag  = "<think>"
	closeTag = "</think>"
)

// feed returns the thinking and text parts of the next content chunk.
func (s *thinkSplitter) feed(in string) (thinking, text string) {
	switch s.state {
	case 2:
		if s.trim {
			in = strings.TrimLeft(in, "\r\n")
			s.trim = in == ""
		}
		return "", in
	case 0:
		s.pending += in
		t := strings.TrimLeft(s.pending, " \t\r\n")
		if t == "" || (len(t) < len(openTag) && strings.HasPrefix(openTag, t)) {
			return "", ""
		}
		if !strings.HasPrefix(t, openTag) {
			s.state = 2
			out := s.pending
			s.pending = ""
			return "", out
		}
		s.state = 1
		in = t[len(openTag):]
		s.pending = ""
	}
	// Inside a think section.
	buf := s.pending + in
	if i := strings.Index(buf, closeTag); i >= 0 {
		s.state, s.pending = 2, ""
		rest := strings.TrimLeft(buf[i+len(closeTag):], "\r\n")
		s.trim = rest == ""
		return buf[:i], rest
	}
	keep := 0
	for n := min(len(closeTag)-1, len(buf)); n > 0; n-- {
		if strings.HasSuffix(buf, closeTag[:n]) {
			keep = n
			break
		}
	}
	s.pending = buf[len(buf)-keep:]
	return buf[:len(buf)-keep], ""
}

// flush returns what is held back at the end of the stream.
func (s *thinkSplitter) flush() (thinking, text string) {
	p := s.pending
	s.pending = ""
	switch s.state {
	case 1:
		return p, ""
	default:
		return "", p
	}
}
