package llm

import "strings"

// purposePrefix starts the tag line of a side request. It reads as plain
// English to a real model and is easy for the mock server to find again.
const purposePrefix = "This is a hew side request, purpose: "

// PurposeTag is the line a side request puts at the start of its first system
// block, so a mock server can tell a summary request from a main-loop turn
// without any out-of-band channel. Main requests carry no tag.
func PurposeTag(p Purpose) string {
	if p == "" || p == PurposeMain {
		return ""
	}
	return purposePrefix + string(p) + "."
}

// DetectPurpose says what req is for: its Purpose field when set, else the
// tag at the start of its first system block, else PurposeMain.
func DetectPurpose(req *Request) Purpose {
	if req == nil {
		return PurposeMain
	}
	if req.Purpose != "" {
		return req.Purpose
	}
	if len(req.System) > 0 {
		return PurposeFromText(req.System[0].Text)
	}
	return PurposeMain
}

// PurposeFromText reads a purpose tag at the start of a system prompt as it
// arrived on the wire (the mock server sees only text). Untagged text is main.
func PurposeFromText(system string) Purpose {
	s := strings.TrimLeft(system, " \t\r\n")
	if !strings.HasPrefix(s, purposePrefix) {
		return PurposeMain
	}
	s = s[len(purposePrefix):]
	end := strings.IndexAny(s, ". \r\n")
	if end < 0 {
		end = len(s)
	}
	if end == 0 {
		return PurposeMain
	}
	return Purpose(s[:end])
}

// TaggedSystem returns req's system blocks with the purpose tag in front of
// the first one when req is a side request that lacks it. The result is a
// copy; req is not changed.
func TaggedSystem(req *Request) []SystemBlock {
	sys := append([]SystemBlock(nil), req.System...)
	tag := PurposeTag(req.Purpose)
	if tag == "" || PurposeFromText(firstText(sys)) == req.Purpose {
		return sys
	}
	if len(sys) == 0 {
		return []SystemBlock{{Text: tag}}
	}
	sys[0].Text = tag + "\n" + sys[0].Text
	return sys
}

func firstText(sys []SystemBlock) string {
	if len(sys) == 0 {
		return ""
	}
	return sys[0].Text
}
