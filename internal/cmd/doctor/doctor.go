// Package doctor is `hew doctor`: it checks what hew needs (provider and
// key, the endpoint, the sandbox, ripgrep, bash, settings and MCP files) and
// says how to fix what is wrong. It contacts only the provider's endpoint.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hew-dev/hew/internal/checkpoint"
	"github.com/hew-dev/hew/internal/cmd/cmdutil"
	"github.com/hew-dev/hew/internal/config"
	"github.com/hew-dev/hew/internal/llm/pick"
	"github.com/hew-dev/hew/internal/mcp"
	"github.com/hew-dev/hew/internal/netproxy"
	"github.com/hew-dev/hew/internal/sandbox"
)

const doctorUsage = `usage: hew doctor [--provider NAME | --mock] [--model NAME] [--api-base URL] [--timeout DURATION]

Checks what hew needs and says how to fix what is wrong: the model provider
and its key, whether the provider's endpoint answers, the shell sandbox,
ripgrep, bash, and the settings and MCP config files of this directory.
It contacts nothing but the chosen provider's endpoint. Exit 0 when nothing
is wrong (warnings allowed), 1 otherwise.

Flags:
`

// doctorReport collects check results.
type doctorReport struct {
	out      io.Writer
	failures int
}

func (r *doctorReport) ok(format string, args ...any) {
	fmt.Fprintf(r.out, "ok    "+format+"\n", args...)
}

func (r *doctorReport) warn(fix, format string, args ...any) {
	fmt.Fprintf(r.out, "warn  "+format+"\n", args...)
	if fix != "" {
		fmt.Fprintf(r.out, "      fix: %s\n", fix)
	}
}

func (r *doctorReport) fail(fix, format string, args ...any) {
	r.failures++
	fmt.Fprintf(r.out, "FAIL  "+format+"\n", args...)
	if fix != "" {
		fmt.Fprintf(r.out, "      fix: %s\n", fix)
	}
}

// Exit codes (SPEC section 1).
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// Options is what the check needs, as values.
type Options struct {
	Stdout, Stderr io.Writer
	// Root is the project directory; RootErr why it could not be found.
	Root    string
	RootErr error
	HewHome string
	// UserHome is the user's home directory (~/.claude settings live there).
	UserHome string
	// Version is what `hew --version` prints.
	Version string
	// Getenv and LookupEnv read the environment hew was given.
	Getenv    func(string) string
	LookupEnv func(string) (string, bool)
	// Sandbox builds the sandbox a session would have under these settings
	// (nothing is started; its state is probed on first look).
	Sandbox func(*config.Settings) *sandbox.Sandbox
	// Checkpoints opens the project's checkpoint store under these
	// settings (nil: checkpoints are off); nil skips the check.
	Checkpoints func(*config.Settings) *checkpoint.Store
}

// Run runs `hew doctor ARGS` and returns the exit code.
func Run(opts Options, args []string) int {
	var o pick.Flags
	fs := pflag.NewFlagSet("doctor", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.Provider, "provider", "", "check this provider (anthropic, openai, mock)")
	fs.BoolVar(&o.Mock, "mock", false, "check the offline model")
	fs.StringVar(&o.Model, "model", "", "model name")
	fs.StringVar(&o.APIBase, "api-base", "", "endpoint override")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the endpoint")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(opts.Stderr, "hew: doctor: %v\n", err)
		return exitUsage
	}
	if *help {
		fmt.Fprint(opts.Stdout, doctorUsage+cmdutil.FlagUsages(fs))
		return exitOK
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(opts.Stderr, "hew: doctor takes no arguments (see hew doctor --help)")
		return exitUsage
	}
	r := &doctorReport{out: opts.Stdout}
	root, home := opts.Root, opts.HewHome
	if opts.RootErr != nil {
		r.fail("", "working directory: %v", opts.RootErr)
		return exitError
	}
	fmt.Fprintf(opts.Stdout, "%s\nproject %s\nstate   %s\n\n", opts.Version, root, home)

	settings, err := config.Load(config.Paths{Home: home, Project: root, UserHome: opts.UserHome})
	if err != nil {
		r.fail("correct the file at the position named above, or move it aside", "settings: %v", err)
		settings = config.Default()
	} else {
		if len(settings.Files) == 0 {
			r.ok("settings: no settings files (defaults apply)")
		} else {
			r.ok("settings: %s parse", strings.Join(settings.Files, ", "))
		}
		for _, f := range settings.Files {
			if strings.HasPrefix(f, ".claude") {
				r.ok("settings: %s is Claude Code's: its permissions and hooks are used (no .hew file for that layer)", f)
			}
		}
		for _, w := range settings.Warnings {
			r.warn("", "settings: %s", w)
		}
		doctorTrust(r, settings.Trust)
	}
	if err := settings.MCPJSONError; err != nil {
		r.fail("correct the file at the position named above", "mcp: %v", err)
	}
	mc := mcp.LoadConfig(mcp.ConfigOptions{Root: root, Settings: mcp.FromSettings(settings.MCPServers, home), NoMCPJSON: true, LookupEnv: opts.LookupEnv})
	for _, p := range mc.Problems {
		r.fail("correct the MCP server definition (see SPEC: command/args/env or type http + url)", "%v", p)
	}
	if len(mc.Servers) > 0 {
		names := make([]string, len(mc.Servers))
		for i, s := range mc.Servers {
			names[i] = s.Name
		}
		r.ok("mcp: %d server(s) configured: %s (hew mcp list connects and counts their tools)", len(names), strings.Join(names, ", "))
	}

	checkProvider(r, opts, o, settings, *timeout)
	checkSandbox(r, opts, settings)
	checkTools(r, home)
	checkCheckpoints(r, opts, settings)

	fmt.Fprintln(opts.Stdout)
	if r.failures > 0 {
		fmt.Fprintf(opts.Stdout, "%d problem(s) found\n", r.failures)
		return exitError
	}
	fmt.Fprintln(opts.Stdout, "no problems found")
	return exitOK
}

// doctorTrust reports whether the project's settings that run code or
// widen permissions apply, and what they are when they do not.
func doctorTrust(r *doctorReport, t config.Trust) {
	if !t.Pending() {
		r.ok("trust: %s", t.Summary())
		return
	}
	r.warn("run hew here in a terminal to review and trust them, or pass --trust-project for one run", "trust: %s", t.Summary())
	for _, it := range t.Items {
		fmt.Fprintf(r.out, "      %s: %s\n", it.File, it.Text)
	}
}

func checkProvider(r *doctorReport, opts Options, o pick.Flags, settings *config.Settings, timeout time.Duration) {
	c, err := pick.Choose(o, opts.Getenv, settings.Provider, settings.Model)
	if err != nil {
		if errors.Is(err, pick.ErrNoProvider) {
			r.fail("export ANTHROPIC_API_KEY=… (or OPENAI_API_KEY, AGENT_API_KEY), or try hew --mock", "provider: no key found in ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, OPENAI_API_KEY, AGENT_API_KEY, and no HEW_PROVIDER")
		} else {
			r.fail("set the variable named above, or pass --mock", "provider: %v", err)
		}
		return
	}
	if c.Name == "mock" {
		r.ok("provider: mock (built-in offline model, from %s), model %s", c.Why, c.Model)
		if p := opts.Getenv("HEW_MOCK_SCRIPT"); p != "" {
			if _, err := pick.New(c, p); err != nil {
				r.fail("fix or unset HEW_MOCK_SCRIPT", "mock scenario: %v", err)
			} else {
				r.ok("mock scenario: %s loads", p)
			}
		}
		return
	}
	key := "no key (a local server may not need one)"
	if c.KeyVar != "" {
		key = "key from " + c.KeyVar
	}
	r.ok("provider: %s (from %s), model %s, %s", c.Name, c.Why, c.Model, key)
	status, err := probeEndpoint(c, timeout)
	endpoint := c.BaseURL
	switch {
	case err != nil:
		r.fail("check the base URL variable or --api-base, the network and any proxy", "endpoint %s unreachable: %v", endpoint, err)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		keyVar := c.KeyVar
		if keyVar == "" {
			keyVar = "the key variable"
		}
		r.fail("the server rejected the key: check "+keyVar, "endpoint %s answers %d", endpoint, status)
	case status >= 500:
		r.warn("the service may be down; try again later", "endpoint %s answers %d", endpoint, status)
	default:
		r.ok("endpoint %s answers (HTTP %d)", endpoint, status)
	}
}

// probeEndpoint asks the provider's model list with the configured
// credentials: any HTTP answer shows the endpoint is reachable, 401/403
// that the key is wrong.
func probeEndpoint(c pick.Choice, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	url := c.BaseURL + "/models"
	if c.Name == "anthropic" {
		url = c.BaseURL + "/v1/models"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	switch {
	case c.Name == "anthropic" && c.AuthToken != "" && c.APIKey == "":
		req.Header.Set("Authorization", "Bearer "+c.AuthToken)
		req.Header.Set("anthropic-version", "2023-06-01")
	case c.Name == "anthropic":
		req.Header.Set("x-api-key", c.APIKey)
		req.Header.Set("anthropic-version", "2023-06-01")
	case c.APIKey != "":
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	return resp.StatusCode, nil
}

func checkSandbox(r *doctorReport, opts Options, settings *config.Settings) {
	sb := opts.Sandbox(settings)
	st := sb.State()
	lines := sb.StatusLines()
	switch {
	case !settings.Sandbox.Enabled:
		r.warn(`remove "sandbox": {"enabled": false} from settings to confine shell commands`, "%s", lines[0])
		return
	case !st.Confined:
		r.warn("a Linux kernel with Landlock (5.13+, enabled in the LSM list) confines run_shell; elsewhere commands run unconfined and hew warns on every run", "%s", lines[0])
		return
	}
	for _, l := range lines {
		r.ok("%s", l)
	}
	if st.Warning != "" {
		r.warn("unprivileged user namespaces (or Landlock ABI v4+) let hew limit the network to allowed domains", "%s", st.Warning)
	}
	if st.Network == sandbox.NetProxy {
		allowed := "none in settings (add sandbox.allowedDomains)"
		if len(settings.Sandbox.AllowedDomains) > 0 {
			allowed = strings.Join(settings.Sandbox.AllowedDomains, " ")
		}
		r.ok("sandbox allowed domains: %s", allowed)
		r.ok("sandbox built-in domains: %s", strings.Join(netproxy.DefaultDomains(), " "))
		if len(settings.Sandbox.DeniedDomains) > 0 {
			r.ok("sandbox denied domains: %s", strings.Join(settings.Sandbox.DeniedDomains, " "))
		}
	}
}

func checkTools(r *doctorReport, home string) {
	if p, err := exec.LookPath("rg"); err == nil {
		r.ok("ripgrep: %s", p)
	} else {
		r.warn("install ripgrep (apt-get install ripgrep, brew install ripgrep) for faster grep_search", "ripgrep: not on PATH; grep_search uses its built-in search")
	}
	if p, err := exec.LookPath("bash"); err == nil {
		r.ok("bash: %s", p)
	} else {
		r.fail("install bash; run_shell runs commands with bash -c", "bash: not on PATH")
	}
	if _, err := exec.LookPath("git"); err != nil {
		r.warn("install git so hew can show the branch and status to the model", "git: not on PATH")
	}
	if fi, err := os.Stat(home); err == nil && !fi.IsDir() {
		r.fail("HEW_HOME must be a directory", "state directory %s is not a directory", home)
	}
}
