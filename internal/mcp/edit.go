package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/hew-dev/hew/internal/fsutil"
)

// member is one key of a JSON object, kept in file order.
type member struct {
	key string
	val json.RawMessage
}

// parseObject reads a JSON object keeping its keys in order, so editing one
// key leaves the rest of a file as it was.
func parseObject(data []byte) ([]member, error) {
	if len(bytes.TrimSpace(data)) == 0 || string(bytes.TrimSpace(data)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(data, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(data, err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonError(data, err)
		}
		out = append(out, member{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, jsonError(data, err)
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON object")
	}
	return out, nil
}

func encodeObject(ms []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func find(ms []member, key string) int {
	for i, m := range ms {
		if m.key == key {
			return i
		}
	}
	return -1
}

// editServers applies fn to the mcpServers object of the file at path and
// writes the file back atomically, other content untouched. A missing file
// starts empty.
func editServers(path string, fn func(servers []member) ([]member, error)) error {
	data, err := os.ReadFile(path)
	perm := fs.FileMode(0o644)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil {
		if st, serr := os.Stat(path); serr == nil {
			perm = st.Mode().Perm()
		}
	}
	top, err := parseObject(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var servers []member
	i := find(top, "mcpServers")
	if i >= 0 {
		if servers, err = parseObject(top[i].val); err != nil {
			return fmt.Errorf("%s: mcpServers: %w", path, err)
		}
	}
	if servers, err = fn(servers); err != nil {
		return err
	}
	enc := encodeObject(servers)
	if i >= 0 {
		top[i].val = enc
	} else {
		top = append(top, member{"mcpServers", enc})
	}
	var out bytes.Buffer
	if err := json.Indent(&out, encodeObject(top), "", "  "); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	out.WriteByte('\n')
	return fsutil.WriteFileAtomic(path, out.Bytes(), perm)
}
