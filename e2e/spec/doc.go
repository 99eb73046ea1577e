// Package spec is the outside conformance suite: it builds the hew binary
// and drives it only through what SPEC.md fixes (flags, environment, files,
// tool names, output formats, exit codes), so a change that breaks the
// external contract fails here even when every unit test passes.
package spec
