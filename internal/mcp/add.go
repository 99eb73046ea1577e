package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// addDef is the JSON written for a new server; field order is the order
// users expect to read.
type addDef struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// usageErr is a problem with the command line: exit 2, nothing written.
type usageErr struct{ msg string }

func (e usageErr) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageErr{fmt.Sprintf(format, args...)} }

// addRequest is a parsed `hew mcp add` command line.
type addRequest struct {
	scope, name string
	def         addDef
	fromClaude  bool
}

// parseAdd parses `hew mcp add` like Claude Code's `claude mcp add`: flags
// may come before or after NAME; everything after "--" is the server's
// command and its arguments, never ours.
func parseAdd(args []string) (addRequest, error) {
	var req addRequest
	var cmd []string
	if i := indexOf(args, "--"); i >= 0 {
		args, cmd = args[:i], args[i+1:]
	}
	fset := pflag.NewFlagSet("hew mcp add", pflag.ContinueOnError)
	fset.SetOutput(io.Discard)
	scope := fset.StringP("scope", "s", ScopeLocal, "")
	transport := fset.StringP("transport", "t", "stdio", "")
	envs := fset.StringArrayP("env", "e", nil, "")
	headers := fset.StringArrayP("header", "H", nil, "")
	fset.BoolVar(&req.fromClaude, "from-claude", false, "")
	if err := fset.Parse(args); err != nil {
		return req, usagef("%v", err)
	}
	req.scope = *scope
	if _, err := scopeFile(req.scope, Deps{Root: "-", Home: "-"}); err != nil {
		return req, usageErr{err.Error()}
	}
	pos := fset.Args()
	if req.fromClaude {
		if len(pos) > 0 || len(cmd) > 0 || len(*envs) > 0 || len(*headers) > 0 || fset.Changed("transport") {
			return req, usagef("--from-claude takes only --scope")
		}
		return req, nil
	}
	if len(pos) == 0 {
		return req, usagef("need NAME and a command (after --) or a URL")
	}
	req.name = pos[0]
	if !validName.MatchString(req.name) {
		return req, usagef("server name %q may only use letters, digits, _ and -", req.name)
	}
	target := append(pos[1:len(pos):len(pos)], cmd...)
	if len(pos) > 1 && len(cmd) > 0 {
		return req, usagef("give the command either after -- or before it, not both (%q and %q)", strings.Join(pos[1:], " "), strings.Join(cmd, " "))
	}
	if len(target) == 0 {
		return req, usagef("need NAME and a command (after --) or a URL")
	}
	switch *transport {
	case "stdio":
		if isURL(target[0]) && len(target) == 1 {
			return req, usagef("%q is a URL: add --transport http (or sse) for a remote server", target[0])
		}
		if len(*headers) > 0 {
			return req, usagef("--header is for http and sse servers; a stdio server takes -e KEY=VALUE")
		}
		req.def.Command, req.def.Args = target[0], target[1:]
		for _, e := range *envs {
			k, v, ok := strings.Cut(e, "=")
			if !ok || !envName.MatchString(k) {
				return req, usagef("-e %q is not KEY=VALUE (KEY: letters, digits and _)", e)
			}
			if req.def.Env == nil {
				req.def.Env = map[string]string{}
			}
			req.def.Env[k] = v
		}
	case "http", "sse":
		if len(target) != 1 || !isURL(target[0]) {
			return req, usagef("an %s server takes NAME and one http(s) URL, got %q", *transport, strings.Join(target, " "))
		}
		if len(*envs) > 0 {
			return req, usagef("-e is for stdio servers; an %s server takes --header \"Name: value\"", *transport)
		}
		req.def.Type, req.def.URL = *transport, target[0]
		for _, h := range *headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(strings.TrimSpace(k), " \t") {
				return req, usagef("--header %q is not \"Name: value\"", h)
			}
			if req.def.Headers == nil {
				req.def.Headers = map[string]string{}
			}
			req.def.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	default:
		return req, usagef("unknown transport %q (want stdio, http or sse)", *transport)
	}
	return req, nil
}

func isURL(s string) bool { return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") }

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// report prints err for `hew mcp VERB` and returns its exit code.
func report(stderr io.Writer, verb string, err error) int {
	fmt.Fprintf(stderr, "hew mcp %s: %v\n", verb, err)
	var ue usageErr
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func cmdAdd(args []string, stdout, stderr io.Writer, deps Deps) int {
	req, err := parseAdd(args)
	if err != nil {
		return report(stderr, "add", err)
	}
	if req.fromClaude {
		return importClaude(req.scope, stdout, stderr, deps)
	}
	raw, _ := json.Marshal(req.def)
	return addServer(req.scope, req.name, raw, stdout, stderr, deps, "add")
}

// cmdAddJSON runs `hew mcp add-json [--scope S] NAME JSON`.
func cmdAddJSON(args []string, stdout, stderr io.Writer, deps Deps) int {
	fset := pflag.NewFlagSet("hew mcp add-json", pflag.ContinueOnError)
	fset.SetOutput(io.Discard)
	scope := fset.StringP("scope", "s", ScopeLocal, "")
	if err := fset.Parse(args); err != nil {
		return report(stderr, "add-json", usagef("%v", err))
	}
	if fset.NArg() != 2 {
		return report(stderr, "add-json", usagef("need NAME and a JSON definition, e.g. add-json fs '{\"command\":\"npx\",\"args\":[\"-y\",\"server\"]}'"))
	}
	name, text := fset.Arg(0), strings.TrimSpace(fset.Arg(1))
	if !validName.MatchString(name) {
		return report(stderr, "add-json", usagef("server name %q may only use letters, digits, _ and -", name))
	}
	if !strings.HasPrefix(text, "{") || !json.Valid([]byte(text)) {
		return report(stderr, "add-json", usagef("the definition is not a JSON object: %s", clipText(text)))
	}
	return addServer(*scope, name, json.RawMessage(text), stdout, stderr, deps, "add-json")
}

// addServer checks def and writes it to the scope's file, through
// deps.KeepTrust so a trusted project stays trusted.
func addServer(scope, name string, def json.RawMessage, stdout, stderr io.Writer, deps Deps, verb string) int {
	// Validate as a session would read it; ${VAR} need not be set yet.
	if _, err := parseServer(name, def, deps.Root, func(string) (string, bool) { return "x", true }); err != nil {
		return report(stderr, verb, usagef("server %q: %v", name, err))
	}
	path, err := scopeFile(scope, deps)
	if err != nil {
		return report(stderr, verb, usageErr{err.Error()})
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, def); err != nil {
		return report(stderr, verb, usagef("%v", err))
	}
	write := func() error {
		return editServers(path, func(servers []member) ([]member, error) {
			if find(servers, name) >= 0 {
				return nil, fmt.Errorf("server %q already exists in %s; remove it first", name, path)
			}
			return append(servers, member{name, json.RawMessage(compact.Bytes())}), nil
		})
	}
	if deps.KeepTrust != nil {
		err = deps.KeepTrust(write)
	} else {
		err = write()
	}
	if err != nil {
		return report(stderr, verb, err)
	}
	fmt.Fprintf(stdout, "Added MCP server %q to %s (%s scope)\n", name, path, scope)
	return 0
}

// cmdGet runs `hew mcp get NAME`: the definition that a session would use
// and the file it comes from.
func cmdGet(args []string, stdout, stderr io.Writer, deps Deps) int {
	fset := pflag.NewFlagSet("hew mcp get", pflag.ContinueOnError)
	fset.SetOutput(io.Discard)
	asJSON := fset.Bool("json", false, "")
	if err := fset.Parse(args); err != nil {
		return report(stderr, "get", usagef("%v", err))
	}
	if fset.NArg() != 1 {
		return report(stderr, "get", usagef("need exactly one NAME"))
	}
	name := fset.Arg(0)
	var found *Source
	for _, sc := range []string{ScopeUser, ScopeProject, ScopeLocal} { // later scopes win
		paths := []string{}
		if p, err := scopeFile(sc, deps); err == nil {
			paths = append(paths, p)
		}
		if sc == ScopeProject && deps.Root != "" {
			paths = append(paths, filepath.Join(deps.Root, ".hew", "settings.json"))
		}
		for _, p := range paths {
			if src, err := readServersFile(p, sc); err == nil {
				if _, ok := src.Servers[name]; ok {
					found = &src
				}
			}
		}
	}
	if found == nil {
		fmt.Fprintf(stderr, "hew mcp get: no server %q (see hew mcp list)\n", name)
		return 1
	}
	raw := found.Servers[name]
	if *asJSON {
		var v any
		_ = json.Unmarshal(raw, &v)
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"name": name, "scope": found.Scope, "source": found.Path, "definition": v})
		return 0
	}
	fmt.Fprintf(stdout, "%s:\n  scope:   %s (%s)\n", name, found.Scope, found.Path)
	sc, err := parseServer(name, raw, deps.Root, func(k string) (string, bool) { return "${" + k + "}", true })
	if err != nil {
		fmt.Fprintf(stdout, "  error:   %v\n  raw:     %s\n", err, raw)
		return 1
	}
	fmt.Fprintf(stdout, "  type:    %s\n", sc.Transport)
	if sc.Transport == "stdio" {
		fmt.Fprintf(stdout, "  command: %s\n", strings.TrimSpace(sc.Command+" "+strings.Join(sc.Args, " ")))
		for _, k := range sortedKeys(sc.Env) {
			fmt.Fprintf(stdout, "  env:     %s=%s\n", k, sc.Env[k])
		}
	} else {
		fmt.Fprintf(stdout, "  url:     %s\n", sc.URL)
		for _, k := range sortedKeys(sc.Headers) {
			fmt.Fprintf(stdout, "  header:  %s: %s\n", k, sc.Headers[k])
		}
	}
	fmt.Fprintf(stdout, "Remove it with: hew mcp remove --scope %s %s\n", found.Scope, name)
	return 0
}

// importClaude copies the servers Claude Code keeps for this project in
// ~/.claude.json (projects[ROOT].mcpServers) into scope. hew never reads
// that file on its own: it belongs to another program.
func importClaude(scope string, stdout, stderr io.Writer, deps Deps) int {
	if deps.UserHome == "" || deps.Root == "" {
		return report(stderr, "add", errors.New("--from-claude needs the home directory and a project"))
	}
	path := filepath.Join(deps.UserHome, ".claude.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return report(stderr, "add", fmt.Errorf("--from-claude: %w", err))
	}
	var doc struct {
		Projects map[string]struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return report(stderr, "add", fmt.Errorf("--from-claude: %s: %w", path, jsonError(data, err)))
	}
	servers := doc.Projects[deps.Root].MCPServers
	if len(servers) == 0 {
		fmt.Fprintf(stderr, "hew mcp add --from-claude: %s has no MCP servers for %s\n", path, deps.Root)
		return 1
	}
	code := 0
	for _, name := range sortedKeys(servers) {
		if c := addServer(scope, name, servers[name], stdout, stderr, deps, "add --from-claude"); c != 0 {
			code = 1
		}
	}
	return code
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func clipText(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
