package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/hew-dev/hew/internal/mcp"
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

var (
	envName   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	validName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

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
	scope := fset.StringP("scope", "s", mcp.ScopeLocal, "")
	transport := fset.StringP("transport", "t", "stdio", "")
	envs := fset.StringArrayP("env", "e", nil, "")
	headers := fset.StringArrayP("header", "H", nil, "")
	fset.BoolVar(&req.fromClaude, "from-claude", false, "")
	if err := fset.Parse(args); err != nil {
		return req, usagef("%v", err)
	}
	req.scope = *scope
	if _, err := mcp.ScopeFile(req.scope, "-", "-"); err != nil {
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

func add(o Options, args []string) int {
	req, err := parseAdd(args)
	if err != nil {
		return report(o.Stderr, "add", err)
	}
	if req.fromClaude {
		return importClaude(o, req.scope)
	}
	raw, _ := json.Marshal(req.def)
	return addServer(o, req.scope, req.name, raw, "add")
}

// addJSON runs `hew mcp add-json [--scope S] NAME JSON`.
func addJSON(o Options, args []string) int {
	stderr := o.Stderr
	fset := pflag.NewFlagSet("hew mcp add-json", pflag.ContinueOnError)
	fset.SetOutput(io.Discard)
	scope := fset.StringP("scope", "s", mcp.ScopeLocal, "")
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
	return addServer(o, *scope, name, json.RawMessage(text), "add-json")
}

// addServer checks def and writes it to the scope's file, through
// o.KeepTrust so a trusted project stays trusted.
func addServer(o Options, scope, name string, def json.RawMessage, verb string) int {
	stdout, stderr := o.Stdout, o.Stderr
	// Validate as a session would read it; ${VAR} need not be set yet.
	if _, err := mcp.ParseServer(name, def, o.Root, func(string) (string, bool) { return "x", true }); err != nil {
		return report(stderr, verb, usagef("server %q: %v", name, err))
	}
	path, err := mcp.ScopeFile(scope, o.Root, o.Home)
	if err != nil {
		return report(stderr, verb, usageErr{err.Error()})
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, def); err != nil {
		return report(stderr, verb, usagef("%v", err))
	}
	write := func() error { return mcp.AddServer(path, name, compact.Bytes()) }
	if o.KeepTrust != nil {
		err = o.KeepTrust(write)
	} else {
		err = write()
	}
	if err != nil {
		return report(stderr, verb, err)
	}
	fmt.Fprintf(stdout, "Added MCP server %q to %s (%s scope)\n", name, path, scope)
	return 0
}

// get runs `hew mcp get NAME`: the definition that a session would use,
// the file it comes from, and whether the project's trust withholds it.
func get(o Options, args []string) int {
	stdout, stderr := o.Stdout, o.Stderr
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
	var found *mcp.Source
	for _, sc := range []string{mcp.ScopeUser, mcp.ScopeProject, mcp.ScopeLocal} { // later scopes win
		for _, p := range mcp.ScopeFiles(sc, o.Root, o.Home) {
			if src, err := mcp.ReadServers(p, sc); err == nil {
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
	why := ""
	if found.Scope == mcp.ScopeProject || found.Scope == mcp.ScopeLocal {
		if t, ok := o.trust(); ok {
			why = withheldReason(t)
		}
	}
	raw := found.Servers[name]
	if *asJSON {
		var v any
		_ = json.Unmarshal(raw, &v)
		doc := map[string]any{"name": name, "scope": found.Scope, "source": found.Path, "definition": v}
		if why != "" {
			doc["withheld"] = why
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(doc)
		return 0
	}
	fmt.Fprintf(stdout, "%s:\n  scope:   %s (%s)\n", name, found.Scope, found.Path)
	if why != "" {
		fmt.Fprintf(stdout, "  status:  %s: %s\n", mcp.StateWithheld, why)
	}
	sc, err := mcp.ParseServer(name, raw, o.Root, keepVars)
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
// ~/.claude.json into scope.
func importClaude(o Options, scope string) int {
	stderr := o.Stderr
	if o.UserHome == "" || o.Root == "" {
		return report(stderr, "add", errors.New("--from-claude needs the home directory and a project"))
	}
	path, servers, err := mcp.ClaudeServers(o.UserHome, o.Root)
	if err != nil {
		return report(stderr, "add", fmt.Errorf("--from-claude: %w", err))
	}
	if len(servers) == 0 {
		fmt.Fprintf(stderr, "hew mcp add --from-claude: %s has no MCP servers for %s\n", path, o.Root)
		return 1
	}
	code := 0
	for _, name := range sortedKeys(servers) {
		if c := addServer(o, scope, name, servers[name], "add --from-claude"); c != 0 {
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
