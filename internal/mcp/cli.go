package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/hew-dev/hew/internal/tools"
	"github.com/spf13/pflag"
)

// Deps is what `hew mcp ...` needs from the app.
type Deps struct {
	// Context bounds list and serve; nil means context.Background().
	Context context.Context
	// Root is the project root; Home is HEW_HOME (user settings.json).
	Root, Home string
	// Settings are the mcpServers of the settings files; nil reads them with
	// SettingsSources(Home, Root).
	Settings []Source
	// UserHome is the user's home directory (~/.claude.json for --from-claude).
	UserHome string
	// KeepTrust wraps a write to the project's settings made on the user's
	// behalf, so a trusted project stays trusted (config.KeepTrust); nil
	// writes directly.
	KeepTrust func(write func() error) error
	// NoMCPJSON: Settings already hold the servers of .mcp.json.
	NoMCPJSON bool
	// MCPConfigFiles are --mcp-config values.
	MCPConfigFiles []string
	// LookupEnv resolves ${VAR} in server definitions; nil resolves nothing.
	LookupEnv func(string) (string, bool)
	// Options configure the Manager `list` uses.
	Options Options

	// Stdin, Executor and Registry serve `hew mcp serve`.
	Stdin    io.Reader
	Executor ToolExecutor
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

// Command runs `hew mcp ARGS...` and returns the exit code (0 ok, 1 runtime
// error, 2 usage or config error).
func Command(args []string, stdout, stderr io.Writer, deps Deps) int {
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
	ctx := deps.Context
	if ctx == nil {
		ctx = context.Background()
	}
	switch args[0] {
	case "list", "ls":
		return cmdList(ctx, args[1:], stdout, stderr, deps)
	case "add":
		return cmdAdd(args[1:], stdout, stderr, deps)
	case "add-json":
		return cmdAddJSON(args[1:], stdout, stderr, deps)
	case "get":
		return cmdGet(args[1:], stdout, stderr, deps)
	case "remove", "rm":
		return cmdRemove(args[1:], stdout, stderr, deps)
	case "serve":
		if deps.Executor == nil || deps.Registry == nil {
			fmt.Fprintln(stderr, "hew mcp serve: no tool executor was set up")
			return 1
		}
		in := deps.Stdin
		if in == nil {
			in = strings.NewReader("") // no client: serve ends at once
		}
		if err := Serve(ctx, in, stdout, deps.Executor, deps.Registry); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "hew mcp: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// SettingsSources reads mcpServers from the three settings files (user,
// project, local). Missing files are skipped; bad ones are returned as errors
// naming the file.
func SettingsSources(home, root string) ([]Source, []error) {
	var out []Source
	var errs []error
	files := []struct{ scope, path string }{
		{ScopeUser, filepath.Join(home, "settings.json")},
		{ScopeProject, filepath.Join(root, ".hew", "settings.json")},
		{ScopeLocal, filepath.Join(root, ".hew", "settings.local.json")},
	}
	for _, f := range files {
		if (f.scope == ScopeUser && home == "") || (f.scope != ScopeUser && root == "") {
			continue
		}
		src, err := readServersFile(f.path, f.scope)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, &ConfigError{Path: f.path, Err: err})
			}
			continue
		}
		out = append(out, src)
	}
	return out, errs
}

func loadForCLI(deps Deps) (*Config, []error) {
	settings := deps.Settings
	var errs []error
	if settings == nil {
		settings, errs = SettingsSources(deps.Home, deps.Root)
	}
	cfg := LoadConfig(ConfigOptions{Root: deps.Root, Settings: settings, Files: deps.MCPConfigFiles, LookupEnv: deps.LookupEnv, NoMCPJSON: deps.NoMCPJSON})
	return cfg, errs
}

func cmdList(ctx context.Context, args []string, stdout, stderr io.Writer, deps Deps) int {
	fset := pflag.NewFlagSet("hew mcp list", pflag.ContinueOnError)
	fset.SetOutput(stderr)
	asJSON := fset.Bool("json", false, "print JSON")
	if err := fset.Parse(args); err != nil {
		return 2
	}
	cfg, errs := loadForCLI(deps)
	for _, e := range errs {
		fmt.Fprintln(stderr, e)
	}
	for _, p := range cfg.Problems {
		if p.Server == "" {
			fmt.Fprintln(stderr, p)
		}
	}
	m := NewManager(cfg, deps.Options)
	m.Start(ctx)
	st := m.Status()
	_ = m.Close()
	if *asJSON {
		if st == nil {
			st = []ServerStatus{}
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
		if s.Error != "" {
			tgt = "error: " + s.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.Name, s.State, s.Tools, relTo(deps.Root, s.Source), tgt)
	}
	_ = tw.Flush()
	return 0
}

func relTo(root, p string) string {
	if root == "" || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// scopeFile is the file a scope's servers are written to.
func scopeFile(scope string, deps Deps) (string, error) {
	switch scope {
	case ScopeProject:
		if deps.Root == "" {
			return "", errors.New("no project root")
		}
		return filepath.Join(deps.Root, ".mcp.json"), nil
	case "", ScopeLocal:
		if deps.Root == "" {
			return "", errors.New("no project root")
		}
		return filepath.Join(deps.Root, ".hew", "settings.local.json"), nil
	case ScopeUser:
		if deps.Home == "" {
			return "", errors.New("no HEW_HOME")
		}
		return filepath.Join(deps.Home, "settings.json"), nil
	}
	return "", fmt.Errorf("unknown scope %q (want local, project or user)", scope)
}

func cmdRemove(args []string, stdout, stderr io.Writer, deps Deps) int {
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
	scopes := []string{ScopeProject, ScopeLocal, ScopeUser}
	if *scope != "" {
		scopes = []string{*scope}
	}
	var found []string
	for _, sc := range scopes {
		path, err := scopeFile(sc, deps)
		if err != nil {
			if *scope != "" {
				fmt.Fprintln(stderr, "hew mcp remove:", err)
				return 2
			}
			continue
		}
		if src, err := readServersFile(path, sc); err == nil {
			if _, ok := src.Servers[name]; ok {
				found = append(found, path)
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
	err := editServers(found[0], func(servers []member) ([]member, error) {
		i := find(servers, name)
		if i < 0 {
			return nil, fmt.Errorf("server %q is no longer in %s", name, found[0])
		}
		return append(servers[:i], servers[i+1:]...), nil
	})
	if err != nil {
		fmt.Fprintln(stderr, "hew mcp remove:", err)
		return 1
	}
	fmt.Fprintf(stdout, "Removed MCP server %q from %s\n", name, found[0])
	return 0
}
