package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// FieldIssue is one problem with one input field.
type FieldIssue struct {
	// Field is a path such as "offset" or "todos[1].status" ("" = the whole input).
	Field string
	// Problem says what is wrong and what is expected.
	Problem string
}

// ValidationError is returned by Validate when the input does not match the
// tool's schema. Its message names every wrong field so the model can fix
// the call; it is worded differently from the semantic Check errors.
type ValidationError struct {
	Tool   string
	Issues []FieldIssue
}

// Error lists every wrong field and asks for a corrected call.
func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid input for %s: ", e.Tool)
	for i, is := range e.Issues {
		if i > 0 {
			b.WriteString("; ")
		}
		if is.Field != "" {
			b.WriteString(is.Field + ": ")
		}
		b.WriteString(is.Problem)
	}
	fmt.Fprintf(&b, ". Fix the input to match the schema of %s and call it again.", e.Tool)
	return b.String()
}

// schemaEntry caches a resolved schema for the exact bytes it came from.
type schemaEntry struct {
	raw      []byte
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	err      error
}

// Validate checks input against the JSON Schema of the tool named name.
// Empty or null input counts as {}. A tool whose schema cannot be compiled (an MCP
// server's exotic dialect) is not schema-checked; the server checks it.
func (r *Registry) Validate(name string, input json.RawMessage) error {
	t, ok := r.Get(name)
	if !ok {
		return fmt.Errorf("unknown tool %q", name)
	}
	ent := r.schemaFor(name, t.Schema())
	if t := bytes.TrimSpace(input); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		input = json.RawMessage("{}")
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return &ValidationError{Tool: name, Issues: []FieldIssue{{Problem: "input is not valid JSON (" + err.Error() + ")"}}}
	}
	if _, isObj := v.(map[string]any); !isObj {
		return &ValidationError{Tool: name, Issues: []FieldIssue{{Problem: "input must be a JSON object, got " + jsonKind(v)}}}
	}
	if ent.err != nil || ent.resolved == nil {
		return nil
	}
	plain := numbersToFloat(v)
	err := ent.resolved.Validate(plain)
	if err == nil {
		return nil
	}
	issues := explain(ent.schema, plain, "")
	if len(issues) == 0 {
		issues = []FieldIssue{{Field: fieldFromLibError(err.Error()), Problem: lastClause(err.Error())}}
	}
	if len(issues) > 8 {
		issues = issues[:8]
	}
	return &ValidationError{Tool: name, Issues: issues}
}

func (r *Registry) schemaFor(name string, raw json.RawMessage) *schemaEntry {
	r.mu.RLock()
	ent := r.schemas[name]
	r.mu.RUnlock()
	if ent != nil && bytes.Equal(ent.raw, raw) {
		return ent
	}
	ent = &schemaEntry{raw: slices.Clone(raw)}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		ent.err = err
	} else {
		switch s.Schema {
		case "", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema":
		default:
			s.Schema = "" // other dialects: check the common keywords anyway
		}
		ent.schema = &s
		ent.resolved, ent.err = s.Resolve(nil)
	}
	r.mu.Lock()
	if r.schemas == nil {
		r.schemas = map[string]*schemaEntry{}
	}
	r.schemas[name] = ent
	r.mu.Unlock()
	return ent
}

// numbersToFloat turns json.Number into float64 (the validator's number type)
// after decoding with UseNumber so huge integers do not fail to parse.
func numbersToFloat(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbersToFloat(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbersToFloat(e)
		}
	}
	return v
}

// explain walks the common keywords to name the failing fields precisely.
func explain(s *jsonschema.Schema, v any, path string) []FieldIssue {
	if s == nil {
		return nil
	}
	at := func(p string) FieldIssue { return FieldIssue{Field: path, Problem: p} }
	if want := schemaTypes(s); len(want) > 0 && !typeMatches(want, v) {
		return []FieldIssue{at(fmt.Sprintf("must be %s, got %s", joinTypes(want), preview(v)))}
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		opts := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			b, _ := json.Marshal(e)
			opts[i] = string(b)
		}
		return []FieldIssue{at(fmt.Sprintf("must be one of %s, got %s", strings.Join(opts, ", "), preview(v)))}
	}
	var out []FieldIssue
	switch x := v.(type) {
	case map[string]any:
		for _, req := range s.Required {
			if _, ok := x[req]; !ok {
				out = append(out, FieldIssue{Field: join(path, req), Problem: "required field is missing"})
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := s.Properties[k]; ok {
				out = append(out, explain(ps, x[k], join(path, k))...)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Not != nil {
				allowed := make([]string, 0, len(s.Properties))
				for p := range s.Properties {
					allowed = append(allowed, p)
				}
				sort.Strings(allowed)
				out = append(out, FieldIssue{Field: join(path, k), Problem: "unknown field (allowed: " + strings.Join(allowed, ", ") + ")"})
			}
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			out = append(out, at(fmt.Sprintf("needs at least %d item(s), got %d", *s.MinItems, len(x))))
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			out = append(out, at(fmt.Sprintf("allows at most %d item(s), got %d", *s.MaxItems, len(x))))
		}
		for i, e := range x {
			out = append(out, explain(s.Items, e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case string:
		n := utf8.RuneCountInString(x)
		if s.MinLength != nil && n < *s.MinLength {
			out = append(out, at(fmt.Sprintf("must be at least %d character(s) long", *s.MinLength)))
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			out = append(out, at(fmt.Sprintf("must be at most %d characters long, got %d", *s.MaxLength, n)))
		}
		if s.Pattern != "" {
			if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(x) {
				out = append(out, at(fmt.Sprintf("must match the pattern %s", s.Pattern)))
			}
		}
	case float64:
		if s.Minimum != nil && x < *s.Minimum {
			out = append(out, at(fmt.Sprintf("must be >= %s, got %s", num(*s.Minimum), num(x))))
		}
		if s.Maximum != nil && x > *s.Maximum {
			out = append(out, at(fmt.Sprintf("must be <= %s, got %s", num(*s.Maximum), num(x))))
		}
	}
	return out
}

func schemaTypes(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

func typeMatches(want []string, v any) bool {
	got := jsonKind(v)
	for _, w := range want {
		if w == got || (w == "number" && got == "integer") {
			return true
		}
	}
	return false
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func joinTypes(ts []string) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		switch t {
		case "integer", "object", "array":
			out[i] = "an " + t
		default:
			out[i] = "a " + t
		}
	}
	return strings.Join(out, " or ")
}

func preview(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return jsonKind(v) + " " + s
}

func num(f float64) string { return fmt.Sprintf("%g", f) }

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fieldFromLibError turns the deepest "/properties/a/items/properties/b"
// schema pointer of a library error into "a[].b".
func fieldFromLibError(msg string) string {
	i := strings.LastIndex(msg, "validating /")
	if i < 0 {
		return ""
	}
	ptr := strings.SplitN(msg[i+len("validating "):], ":", 2)[0]
	var parts []string
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		switch seg {
		case "properties", "":
		case "items":
			if len(parts) > 0 {
				parts[len(parts)-1] += "[]"
			}
		default:
			parts = append(parts, seg)
		}
	}
	return strings.Join(parts, ".")
}

func lastClause(msg string) string {
	if i := strings.LastIndex(msg, "validating "); i >= 0 {
		if j := strings.Index(msg[i:], ": "); j >= 0 {
			return msg[i+j+2:]
		}
	}
	return msg
}
