// Package mcp is `hew mcp`: list, show, add and remove the configured MCP
// servers, and `hew mcp serve`. internal/mcp reads and writes the server
// definitions and runs the servers; internal/config decides which of the
// project's servers may start (project trust). This package parses the
// command lines and prints.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/mcp"
	"github.com/hew-dev/hew/internal/tools"
	"github.com/spf13/pflag"
)

// Options is what `hew mcp ...` needs from the app.
type Options struct {
	Stdin          io.Reader // serve's client; nil: serve ends at once
	Stdout, Stderr io.Writer
	// Context bounds list and serve; nil means context.Background().
	Context context.Context
	// Root is the project root; Home is HEW_HOME (user settings.json);
	// UserHome is the user's home directory (~/.claude.json for
	// --from-claude).
	Root, Home, UserHome string
	// Settings loads the settings a session in Root would apply: with the
	// project's trust decided, an untrusted project's servers left out.
	// `list` starts only their servers. The app passes its loader, which
	// also prints the trust notice; nil loads them with config.Load.
	Settings func() (*config.Settings, error)
	// KeepTrust wraps a write to the project's settings made on the user's
	// behalf, so a trusted project stays trusted (config.KeepTrust); nil
	// writes directly.
	KeepTrust func(write func() error) error
	// LookupEnv resolves ${VAR} in server definitions; nil resolves nothing.
	LookupEnv func(string) (string, bool)
	// Manager configures the servers `list` starts.
	Manager mcp.Options

	// Executor and Registry serve `hew mcp serve`: the app builds hew's
	// tool pipeline for it.
	Executor mcp.ToolExecutor
	Registry *tools.Registry
}

const usage = `usage:
  hew mcp list [--json]                      configured servers, their state and tool count
  hew mcp get NAME                           one server's definition and where it is
  hew mcp add [flags] NAME -- COMMAND [ARGS...]   add a stdio server
  hew mcp add [flags] --transport http|sse NAME URL
  hew mcp add-json [--scope SCOPE] NAME JSON  add a server from its JSON definition
  hew mcp add --from-claude [--scope SCOPE]  import this project's servers from ~/.claude.json
  hew mcp remove [--scope SCOPE] NAME
  hew mcp serve [permission flags]           hew's own tools as an MCP server on stdio

add flags (before or after NAME; everything after -- is the server's command):
  -s, --scope local|project|user   local: .hew/settings.local.json, this machine only (default);
                                   project: .mcp.json, shared with the repository;
                                   user: $HEW_HOME/settings.json, every project
  -t, --transport stdio|http|sse   (default stdio)
  -e, --env KEY=VALUE              environment for a stdio server (repeatable)
  -H, --header "Name: value"       header for an http or sse server (repeatable)
`

// Run runs `hew mcp ARGS...` and returns the exit code (0 ok, 1 runtime
// error, 2 usage or config error).
func Run(o Options, args []string) int {
	stdout, stderr := o.Stdout, o.Stderr
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, a := range args[1:] {
		// The arguments of an added server's command are not ours.
		if a == "--" || (args[0] == "add-json" && !strings.HasPrefix(a, "-")) {
			break
		}
		if a == "-h" || a == "--help" {
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	switch args[0] {
	case "list", "ls":
		return list(ctx, o, args[1:])
	case "add":
		return add(o, args[1:])
	case "add-json":
		return addJSON(o, args[1:])
	case "get":
		return get(o, args[1:])
	case "remove", "rm":
		return remove(o, args[1:])
	case "serve":
		if o.Executor == nil || o.Registry == nil {
			fmt.Fprintln(stderr, "hew mcp serve: no tool executor was set up")
			return 1
		}
		in := o.Stdin
		if in == nil {
			in = strings.NewReader("") // no client: serve ends at once
		}
		if err := mcp.Serve(ctx, in, stdout, o.Executor, o.Registry); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "hew mcp: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// settings loads what applies to the project, trust decided.
func (o Options) settings() (*config.Settings, error) {
	if o.Settings != nil {
		return o.Settings()
	}
	return config.Load(config.Paths{Home: o.Home, Project: o.Root, UserHome: o.UserHome})
}

// trust is the project's trust state, read quietly (no notice, and a
// settings file that cannot be read only means it is unknown).
func (o Options) trust() (config.Trust, bool) {
	if o.Root == "" {
		return config.Trust{}, false
	}
	s, err := config.Load(config.Paths{Home: o.Home, Project: o.Root, UserHome: o.UserHome})
	if err != nil {
		return config.Trust{}, false
	}
	return s.Trust, true
}

func list(ctx context.Context, o Options, args []string) int {
	stdout, stderr := o.Stdout, o.Stderr
	fset := pflag.NewFlagSet("hew mcp list", pflag.ContinueOnError)
	fset.SetOutput(stderr)
	asJSON := fset.Bool("json", false, "print JSON")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	// Only a trusted project's servers are started to be listed.
	s, err := o.settings()
	if err != nil {
		fmt.Fprintf(stderr, "hew: %v\n", err)
		return 2
	}
	cfg := mcp.LoadConfig(mcp.ConfigOptions{Root: o.Root, Settings: mcp.FromSettings(s.MCPServers, o.Home), LookupEnv: o.LookupEnv, NoMCPJSON: true})
	for _, p := range cfg.Problems {
		if p.Server == "" {
			fmt.Fprintln(stderr, p)
		}
	}
	m := mcp.NewManager(cfg, o.Manager)
	m.Start(ctx)
	st := m.Status()
	_ = m.Close()
	st = append(st, withheld(o.Root, o.Home, s.Trust)...)
	if *asJSON {
		if st == nil {
			st = []mcp.ServerStatus{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(st)
		return 0
	}
	if len(st) == 0 {
		fmt.Fprintln(stdout, "No MCP servers configured. Add one with: hew mcp add NAME -- COMMAND [ARGS...]")
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tTOOLS\tSOURCE\tTARGET")
	for _, s := range st {
		tgt := s.Target
		switch {
		case s.State == mcp.StateWithheld:
			tgt = s.Error
		case s.Error != "":
			tgt = "error: " + s.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.Name, s.State, s.Tools, relTo(o.Root, s.Source), tgt)
	}
	_ = tw.Flush()
	return 0
}

// withheld are the project's servers that the untrusted project may not
// start, one per name as a session would merge them, after the others.
func withheld(root, home string, t config.Trust) []mcp.ServerStatus {
	why := withheldReason(t)
	if why == "" {
		return nil
	}
	byName := map[string]mcp.ServerStatus{}
	for _, sc := range []string{mcp.ScopeProject, mcp.ScopeLocal} { // later ones win
		for _, path := range mcp.ScopeFiles(sc, root, home) {
			src, err := mcp.ReadServers(path, sc)
			if err != nil {
				continue
			}
			for name, raw := range src.Servers {
				st := mcp.ServerStatus{Name: name, Scope: sc, Source: path, State: mcp.StateWithheld, Error: why}
				if def, err := mcp.ParseServer(name, raw, root, keepVars); err == nil {
					st.Transport, st.Target = def.Transport, def.Target()
				}
				byName[name] = st
			}
		}
	}
	out := make([]mcp.ServerStatus, 0, len(byName))
	for _, name := range sortedKeys(byName) {
		out = append(out, byName[name])
	}
	return out
}

// withheldReason says why the project's servers do not start under t, and
// what starts them; "" when they do.
func withheldReason(t config.Trust) string {
	if !mcp.Withheld(mcp.ScopeProject, t) {
		return ""
	}
	why := "project not trusted"
	if t.Status == config.TrustChanged {
		why = "project settings changed since trusted"
	}
	return why + " (run hew here interactively to review and trust them, or pass --trust-project)"
}

// keepVars resolves ${VAR} to itself: a definition is shown as written.
func keepVars(k string) (string, bool) { return "${" + k + "}", true }

func relTo(root, p string) string {
	if root == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func remove(o Options, args []string) int {
	stdout, stderr := o.Stdout, o.Stderr
	fset := pflag.NewFlagSet("hew mcp remove", pflag.ContinueOnError)
	fset.SetOutput(stderr)
	scope := fset.String("scope", "", "project, user or local (default: wherever it is)")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if fset.NArg() != 1 {
		fmt.Fprint(stderr, "hew mcp remove: need exactly one NAME\n\n"+usage)
		return 2
	}
	name := fset.Arg(0)
	scopes := []string{mcp.ScopeProject, mcp.ScopeLocal, mcp.ScopeUser}
	if *scope != "" {
		scopes = []string{*scope}
	}
	var found []string
	for _, sc := range scopes {
		if _, err := mcp.ScopeFile(sc, o.Root, o.Home); err != nil {
			if *scope != "" {
				fmt.Fprintln(stderr, "hew mcp remove:", err)
				return 2
			}
			continue
		}
		// Every file that defines servers of the scope (project: .mcp.json
		// and .hew/settings.json), so what get shows can be removed.
		for _, path := range mcp.ScopeFiles(sc, o.Root, o.Home) {
			if src, err := mcp.ReadServers(path, sc); err == nil {
				if _, ok := src.Servers[name]; ok {
					found = append(found, path)
				}
			}
		}
	}
	switch len(found) {
	case 0:
		fmt.Fprintf(stderr, "hew mcp remove: no server %q in %s\n", name, strings.Join(scopes, ", ")+" scope")
		return 1
	case 1:
	default:
		fmt.Fprintf(stderr, "hew mcp remove: %q is defined in several files (%s); choose one with --scope\n", name, strings.Join(found, ", "))
		return 2
	}
	if err := mcp.RemoveServer(found[0], name); err != nil {
		fmt.Fprintln(stderr, "hew mcp remove:", err)
		return 1
	}
	fmt.Fprintf(stdout, "Removed MCP server %q from %s\n", name, found[0])
	return 0
}
