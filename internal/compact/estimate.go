package compact

import (
	"unicode/utf8"

	"github.com/hew-dev/hew/internal/llm"
)

// Per-structure overheads in tokens: role markers, block framing and JSON
// punctuation the wire formats add around the text itself.
const (
	messageOverhead = 4
	blockOverhead   = 3
	toolOverhead    = 10
	imageTokens     = 1600
)

// EstimateText guesses how many tokens s costs. Tokenizers spend roughly one
// token per CJK character but about four ASCII characters per token, so a
// plain length/4 rule undercounts Chinese, Japanese and Korean text several
// times over. Other non-ASCII letters (accented Latin, Cyrillic, emoji) sit
// in between at about two characters per token.
func EstimateText(s string) int {
	var ascii, cjk, other int
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			// Eight ASCII bytes at a time: this runs over every byte of
			// a history on every request that is not cached.
			if i+8 <= len(s) {
				w := uint64(c) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
					uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
				if w&0x8080808080808080 == 0 {
					ascii += 8
					i += 8
					continue
				}
			}
			ascii++
			i++
			continue
		}
		var r rune
		if c&0xF0 == 0xE0 && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
			// Three-byte sequences: all of the BMP's CJK.
			r = rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			i += 3
		} else {
			var size int
			r, size = utf8.DecodeRuneInString(s[i:])
			i += size
		}
		if isCJK(r) {
			cjk++
		} else {
			other++
		}
	}
	return cjk + (ascii+3)/4 + (other+1)/2
}

// isCJK reports whether r is a Han, kana or Hangul character or CJK
// punctuation / full-width form — the characters tokenizers charge about one
// token each. Plain range checks: this runs for every byte of the history.
func isCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x11FF: // Hangul Jamo
		return true
	case r < 0x2E80:
		return false
	case r <= 0x9FFF: // radicals, CJK punctuation, kana, Hangul compatibility, Han
		return true
	case r >= 0xAC00 && r <= 0xD7AF: // Hangul syllables
		return true
	case r >= 0xF900 && r <= 0xFAFF: // compatibility ideographs
		return true
	case r >= 0xFF00 && r <= 0xFFEF: // half- and full-width forms
		return true
	case r >= 0x20000 && r <= 0x3FFFF: // supplementary ideographs
		return true
	}
	return false
}

// EstimateBlock guesses the tokens of one content block.
func EstimateBlock(b llm.Block) int {
	n := blockOverhead
	switch b.Type {
	case llm.BlockImage:
		return n + imageTokens
	case llm.BlockToolUse:
		n += toolOverhead + EstimateText(b.Name) + EstimateText(string(b.Input))
	case llm.BlockToolResult:
		n += toolOverhead + EstimateText(b.Content)
	case llm.BlockRedactedThinking:
		n += len(b.Data) / 4
	default:
		n += EstimateText(b.Text)
	}
	return n
}

// EstimateMessage guesses the tokens of one message.
func EstimateMessage(m llm.Message) int {
	n := messageOverhead
	for _, b := range m.Content {
		n += EstimateBlock(b)
	}
	return n
}

// EstimateMessages guesses the tokens of a message list.
func EstimateMessages(ms []llm.Message) int {
	n := 0
	for _, m := range ms {
		n += EstimateMessage(m)
	}
	return n
}

// estimateFixed guesses the tokens of the parts of a request that are not
// messages: the system prompt and the tool list.
func estimateFixed(req *llm.Request) int {
	n := 0
	for _, s := range req.System {
		n += blockOverhead + EstimateText(s.Text)
	}
	for _, t := range req.Tools {
		n += toolOverhead + EstimateText(t.Name) + EstimateText(t.Description) + EstimateText(string(t.InputSchema))
	}
	return n
}

// EstimateRequest guesses the input tokens of a whole request.
func EstimateRequest(req *llm.Request) int {
	return estimateFixed(req) + EstimateMessages(req.Messages)
}
