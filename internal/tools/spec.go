package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync"
)

// Spec is the static part of a tool — its name, the Markdown description
// embedded beside its code and its input schema — so a tool file holds only
// what is its own: a tool type embeds a Spec and gets Name, Description and
// Schema. Nothing is read or compacted until first use, so declaring a Spec
// costs start-up nothing; every later call returns the same bytes. The zero
// Spec names no tool: build one with NewSpec.
type Spec struct{ s *spec }

type spec struct {
	name, rawSchema string
	fsys            fs.FS
	verbatim        bool // keep the description's surrounding blank space
	once            sync.Once
	desc            string
	schema          json.RawMessage
}

// NewSpec declares the tool name whose description is NAME.md in fsys (an
// embed.FS of the tool's package) and whose input schema is schema (JSON,
// compacted on first use). A missing description or malformed schema is a
// programming error: it panics on first use, and the registry-wide tests
// catch it before any release.
func NewSpec(fsys fs.FS, name, schema string) Spec {
	return Spec{&spec{name: name, rawSchema: schema, fsys: fsys}}
}

// Verbatim keeps the description exactly as NAME.md has it, trailing
// newline included, for tools whose description was always sent so (the
// bytes of the tool list must not change between versions for no reason).
// Call it where the Spec is declared.
func (s Spec) Verbatim() Spec {
	return Spec{&spec{name: s.s.name, rawSchema: s.s.rawSchema, fsys: s.s.fsys, verbatim: true}}
}

func (s *spec) load() {
	s.once.Do(func() {
		d, err := fs.ReadFile(s.fsys, s.name+".md")
		if err != nil {
			panic(fmt.Sprintf("tools: missing description %s.md: %v", s.name, err))
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(s.rawSchema)); err != nil {
			panic(fmt.Sprintf("tools: schema of %s: %v", s.name, err))
		}
		s.desc, s.schema = string(d), buf.Bytes()
		if !s.verbatim {
			s.desc = strings.TrimSpace(s.desc)
		}
	})
}

// Name implements Tool.
func (s Spec) Name() string { return s.s.name }

// Description implements Tool: NAME.md without surrounding blank space
// (unless Verbatim).
func (s Spec) Description() string { s.s.load(); return s.s.desc }

// Schema implements Tool: the compacted schema, the same bytes every call.
func (s Spec) Schema() json.RawMessage { s.s.load(); return s.s.schema }
