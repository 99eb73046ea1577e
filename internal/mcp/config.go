// Package mcp connects hew to Model Context Protocol servers and exposes
// hew's own tools as one. Server tools join the same loop as built-in tools
// (named mcp__SERVER__TOOL), so validation, hooks, permissions and result
// shaping are the agent's pipeline; this package only starts servers lazily,
// keeps them alive and turns their answers into text. The tools.Tool the
// model calls for a server tool is internal/tools/mcp's adapter over a
// ServerTool.
package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Default limits. npx cold starts are slow, hence the generous start-up time.
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultCallTimeout    = 10 * time.Minute
)

// Scopes say where a server's definition came from. Later scopes override
// earlier ones on equal names (project over user).
const (
	ScopeUser    = "user"    // mcpServers in $HEW_HOME/settings.json
	ScopeProject = "project" // .mcp.json, or mcpServers in .hew/settings.json
	ScopeLocal   = "local"   // mcpServers in .hew/settings.local.json
	ScopeFlag    = "flag"    // --mcp-config FILE
)

var scopeRank = map[string]int{ScopeUser: 0, ScopeProject: 1, ScopeLocal: 2, ScopeFlag: 3}

// Source is one place that defines servers: a settings file's mcpServers
// (handed over by internal/config, which keeps each server's raw JSON), an
// .mcp.json or a --mcp-config file.
type Source struct {
	Scope   string
	Path    string
	Servers map[string]json.RawMessage
}

// ServerConfig is one server, ready to start: variables expanded, defaults
// filled in.
type ServerConfig struct {
	Name   string
	Scope  string
	Source string // file that defined it
	// Transport is "stdio" or "http" (streamable HTTP) or "sse".
	Transport string

	Command string
	Args    []string
	Env     map[string]string
	Cwd     string

	URL     string
	Headers map[string]string

	StartupTimeout time.Duration
	CallTimeout    time.Duration
	// EnabledTools, when non-empty, lists the only tools kept; DisabledTools
	// removes tools. Entries are server tool names or path.Match patterns.
	EnabledTools  []string
	DisabledTools []string
}

// Target is the server's command line (stdio) or URL, as lists show it.
func (sc *ServerConfig) Target() string { return target(sc) }

// ConfigError is a server (or file) whose definition is unusable. The other
// servers still start.
type ConfigError struct {
	Path   string
	Server string // empty when the whole file is bad
	Err    error
}

// Error names the file and, when known, the server.
func (e *ConfigError) Error() string {
	if e.Server == "" {
		return fmt.Sprintf("mcp config %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("mcp server %q in %s: %v", e.Server, e.Path, e.Err)
}

// Unwrap exposes the cause (e.g. a JSON syntax error).
func (e *ConfigError) Unwrap() error { return e.Err }

// Config is the merged set of servers plus the problems found on the way.
type Config struct {
	Servers  []ServerConfig // sorted by name
	Problems []*ConfigError
}

// ConfigOptions says where to look for servers.
type ConfigOptions struct {
	// Root is the project root; its .mcp.json is read, and relative cwd
	// values are resolved against it.
	Root string
	// Settings are the mcpServers of the settings files, in any order.
	Settings []Source
	// Files are --mcp-config arguments: a file path, or inline JSON.
	Files []string
	// LookupEnv resolves ${VAR} in the environment hew was given; nil
	// resolves nothing (every ${VAR} without a default is unset).
	LookupEnv func(string) (string, bool)
	// NoMCPJSON skips Root's .mcp.json: the caller passed its servers in
	// Settings already (internal/config reads it, subject to trust).
	NoMCPJSON bool
}

// LoadConfig gathers servers from every source. A bad file or server is
// listed in Problems (naming file and server) and left out; the rest loads.
func LoadConfig(opts ConfigOptions) *Config {
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	cfg := &Config{}
	sources := append([]Source(nil), opts.Settings...)
	if opts.Root != "" && !opts.NoMCPJSON {
		p := filepath.Join(opts.Root, ".mcp.json")
		if src, err := ReadServers(p, ScopeProject); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				cfg.Problems = append(cfg.Problems, &ConfigError{Path: p, Err: err})
			}
		} else {
			sources = append(sources, src)
		}
	}
	for i, f := range opts.Files {
		var src Source
		var err error
		if strings.HasPrefix(strings.TrimSpace(f), "{") {
			name := fmt.Sprintf("--mcp-config #%d", i+1)
			src, err = parseServersFile([]byte(f), name, ScopeFlag)
			f = name
		} else {
			src, err = ReadServers(f, ScopeFlag)
		}
		if err != nil {
			cfg.Problems = append(cfg.Problems, &ConfigError{Path: f, Err: err})
			continue
		}
		sources = append(sources, src)
	}
	// Stable: lower scopes first, so higher ones overwrite.
	sort.SliceStable(sources, func(i, j int) bool { return scopeRank[sources[i].Scope] < scopeRank[sources[j].Scope] })

	byName := map[string]ServerConfig{}
	bad := map[string]*ConfigError{}
	for _, src := range sources {
		names := make([]string, 0, len(src.Servers))
		for n := range src.Servers {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			sc, err := ParseServer(name, src.Servers[name], opts.Root, lookup)
			if err != nil {
				bad[name] = &ConfigError{Path: src.Path, Server: name, Err: err}
				delete(byName, name)
				continue
			}
			sc.Scope, sc.Source = src.Scope, src.Path
			byName[name] = sc
			delete(bad, name)
		}
	}
	for _, sc := range byName {
		cfg.Servers = append(cfg.Servers, sc)
	}
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	badNames := make([]string, 0, len(bad))
	for n := range bad {
		badNames = append(badNames, n)
	}
	sort.Strings(badNames)
	for _, n := range badNames {
		cfg.Problems = append(cfg.Problems, bad[n])
	}
	return cfg
}

// ReadServers reads the mcpServers of one file (a settings file, an
// .mcp.json or a --mcp-config file) as a Source of scope. A missing file is
// an error satisfying errors.Is(err, os.ErrNotExist); a broken one names
// line:col.
func ReadServers(path, scope string) (Source, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Source{}, err
	}
	return parseServersFile(data, path, scope)
}

func parseServersFile(data []byte, path, scope string) (Source, error) {
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Source{}, jsonError(data, err)
	}
	return Source{Scope: scope, Path: path, Servers: doc.MCPServers}, nil
}

// jsonError adds line:col to a syntax or type error.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return err
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Errorf("line %d:%d: %w", line, col, err)
}

// rawServer is the JSON shape of one server (Claude Code compatible, plus
// hew's timeouts and tool filters).
type rawServer struct {
	Type           string            `json:"type"`
	Command        string            `json:"command"`
	Args           []string          `json:"args"`
	Env            map[string]string `json:"env"`
	Cwd            string            `json:"cwd"`
	URL            string            `json:"url"`
	Headers        map[string]string `json:"headers"`
	StartupTimeout json.RawMessage   `json:"startupTimeout"`
	CallTimeout    json.RawMessage   `json:"callTimeout"`
	EnabledTools   []string          `json:"enabledTools"`
	DisabledTools  []string          `json:"disabledTools"`
}

// ParseServer checks one server's definition the way a session reads it
// and fills in its defaults; lookup resolves ${VAR} (a caller that only
// validates or shows the definition passes one that keeps the variable).
// root resolves a relative cwd. Scope and Source are left for the caller.
func ParseServer(name string, raw json.RawMessage, root string, lookup func(string) (string, bool)) (ServerConfig, error) {
	if strings.TrimSpace(name) == "" {
		return ServerConfig{}, errors.New("empty server name")
	}
	var r rawServer
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&r); err != nil {
		return ServerConfig{}, fmt.Errorf("invalid definition: %w", err)
	}
	sc := ServerConfig{Name: name, EnabledTools: r.EnabledTools, DisabledTools: r.DisabledTools}
	ex := expander{lookup: lookup}
	switch t := strings.ToLower(r.Type); t {
	case "", "stdio":
		if t == "" && r.Command == "" && r.URL != "" {
			sc.Transport = "http"
			break
		}
		sc.Transport = "stdio"
	case "http", "streamable-http", "streamablehttp":
		sc.Transport = "http"
	case "sse":
		sc.Transport = "sse"
	default:
		return ServerConfig{}, fmt.Errorf("unknown type %q (want stdio, http or sse)", r.Type)
	}
	if sc.Transport == "stdio" {
		sc.Command = ex.expand(r.Command)
		if strings.TrimSpace(sc.Command) == "" {
			return ServerConfig{}, errors.New(`missing "command" (or "type": "http" with "url")`)
		}
		for _, a := range r.Args {
			sc.Args = append(sc.Args, ex.expand(a))
		}
		if len(r.Env) > 0 {
			sc.Env = map[string]string{}
			for k, v := range r.Env {
				sc.Env[k] = ex.expand(v)
			}
		}
		sc.Cwd = ex.expand(r.Cwd)
		if sc.Cwd == "" {
			sc.Cwd = root
		} else if !filepath.IsAbs(sc.Cwd) && root != "" {
			sc.Cwd = filepath.Join(root, sc.Cwd)
		}
	} else {
		sc.URL = ex.expand(r.URL)
		if sc.URL == "" {
			return ServerConfig{}, fmt.Errorf(`missing "url" for a %s server`, sc.Transport)
		}
		if !strings.HasPrefix(sc.URL, "http://") && !strings.HasPrefix(sc.URL, "https://") {
			return ServerConfig{}, fmt.Errorf("url %q is not http(s)", sc.URL)
		}
		if len(r.Headers) > 0 {
			sc.Headers = map[string]string{}
			for k, v := range r.Headers {
				sc.Headers[k] = ex.expand(v)
			}
		}
	}
	if ex.err != nil {
		return ServerConfig{}, ex.err
	}
	var err error
	if sc.StartupTimeout, err = parseTimeout(r.StartupTimeout, DefaultStartupTimeout); err != nil {
		return ServerConfig{}, fmt.Errorf("startupTimeout: %w", err)
	}
	if sc.CallTimeout, err = parseTimeout(r.CallTimeout, DefaultCallTimeout); err != nil {
		return ServerConfig{}, fmt.Errorf("callTimeout: %w", err)
	}
	return sc, nil
}

// parseTimeout accepts seconds as a number or a Go duration string ("90s").
func parseTimeout(raw json.RawMessage, def time.Duration) (time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return def, nil
	}
	var d time.Duration
	var n float64
	var s string
	if err := json.Unmarshal(raw, &n); err == nil {
		d = time.Duration(n * float64(time.Second))
	} else if err := json.Unmarshal(raw, &s); err == nil {
		if d, err = time.ParseDuration(s); err != nil {
			if f, ferr := strconv.ParseFloat(s, 64); ferr == nil {
				d = time.Duration(f * float64(time.Second))
			} else {
				return 0, fmt.Errorf("%q is not a duration", s)
			}
		}
	} else {
		return 0, fmt.Errorf("%s is not a number of seconds or a duration", raw)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%s must be positive", raw)
	}
	return d, nil
}

// expander expands ${VAR} and ${VAR:-default}; an unset variable without a
// default is an error, remembered once.
type expander struct {
	lookup func(string) (string, bool)
	err    error
}

func (e *expander) expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		expr := s[i+2 : i+j]
		name, def, hasDef := strings.Cut(expr, ":-")
		if v, ok := e.lookup(name); ok && (v != "" || !hasDef) {
			b.WriteString(v)
		} else if hasDef {
			b.WriteString(def)
		} else if e.err == nil {
			e.err = fmt.Errorf("environment variable %s is not set (use ${%s:-default} for a fallback)", name, name)
		}
		s = s[i+j+1:]
	}
	return b.String()
}
