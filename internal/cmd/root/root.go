// Package root is the root command's command line (SPEC section 1): its
// flags, their checks and the root --help text. internal/app builds a run
// from the Options it returns.
package root

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/hew-dev/hew/internal/cmd/cmdutil"
	"github.com/hew-dev/hew/internal/llm/pick"
	"github.com/hew-dev/hew/internal/permission"
)

// Options are the root command's flags (SPEC section 1).
type Options struct {
	Print              bool
	OutputFormat       string
	Provider           string
	Mock               bool
	Model              string
	APIBase            string
	Perms              permission.Flags // mode, rules and directories of this run
	MaxTurns           int
	Goal               string
	MaxBudgetTokens    int
	MaxCostUSD         float64
	Continue           bool
	Resume             string
	ResumeSet          bool // --resume given, with or without an id
	MCPConfig          []string
	AppendSystemPrompt string
	Verbose            bool
	TrustProject       bool
	SystemPrompt       string
	InputFormat        string
	NoSandbox          bool
	Version            bool
	Help               bool

	Args []string // positional arguments (the prompt)
}

// ErrHelp is returned by Parse when --help was asked for.
var ErrHelp = errors.New("help requested")

// ResumePick is the --resume value meaning "no id given: pick one".
const ResumePick = "\x00pick"

const rootUsage = `hew — a terminal coding agent

Usage:
  hew [flags] [PROMPT]     run one task and exit (also when a prompt is piped on stdin)
  hew                      interactive session (REPL)
  hew -p PROMPT            headless: never asks; what would ask is denied and listed
  hew COMMAND [args]       see the commands below; each has --help

Commands:
  sessions list|show ID|rm ID      sessions of this directory
  memory list|show|add|rm|path     long-term memory of this project
  skills list                      discovered skills and where each came from
  mcp list|add|remove|serve        MCP servers; serve exposes hew's tools on stdio
  permissions check TOOL JSON      print the decision a session would make
  checkpoints list [--json]        the turns of a session that changed files
  undo [--turns N] [--dry-run]     take back the file changes of the last turn(s)
  mock-server --scenario FILE      an offline model server speaking both APIs
  doctor                           check keys, endpoint, sandbox, ripgrep, settings

Flags:
`

const rootUsageFooter = `
Providers (first match wins): --provider/--mock, HEW_PROVIDER, OPENAI_API_KEY with
OPENAI_BASE_URL, ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, OPENAI_API_KEY,
AGENT_API_KEY (+ AGENT_BASE_URL, AGENT_MODEL; DeepSeek by default).
State lives in $HEW_HOME (default ~/.hew). Exit codes: 0 done, 1 error,
2 bad usage or config, 3 stopped by a limit, 130 interrupted.
`

// newFlagSet declares the root flags into o.
func newFlagSet(o *Options) *pflag.FlagSet {
	fs := pflag.NewFlagSet("hew", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	fs.BoolVarP(&o.Print, "print", "p", false, "headless: never ask; whatever would ask is denied and listed in permission_denials")
	fs.StringVar(&o.OutputFormat, "output-format", "text", "`FORMAT` of headless output: text, json (one result object) or stream-json (one event per line)")
	fs.StringVar(&o.Provider, "provider", "", "model backend `NAME`: anthropic, openai or mock")
	fs.BoolVar(&o.Mock, "mock", false, "the built-in offline model (same as --provider mock)")
	fs.StringVar(&o.Model, "model", "", "`NAME` of the model (default: HEW_MODEL, settings, or the provider's default)")
	fs.StringVar(&o.APIBase, "api-base", "", "endpoint `URL`, in the form of the provider's base URL variable")
	cmdutil.PermissionFlags(fs, &o.Perms)
	fs.IntVar(&o.MaxTurns, "max-turns", 50, "at most `N` model round trips per user message")
	fs.StringVar(&o.Goal, "goal", "", "keep working until an evaluator judges `CONDITION` met")
	fs.IntVar(&o.MaxBudgetTokens, "max-budget-tokens", 0, "stop the run after `N` tokens (0 = no limit)")
	fs.Float64Var(&o.MaxCostUSD, "max-cost-usd", 0, "stop the run after an estimated cost of `USD` (0 = no limit)")
	fs.BoolVarP(&o.Continue, "continue", "c", false, "resume the most recent session of this working directory")
	fs.StringVarP(&o.Resume, "resume", "r", "", "resume a session by id (no `[ID]`: pick from this directory's sessions)")
	fs.StringArrayVar(&o.MCPConfig, "mcp-config", nil, "extra MCP server config `FILE` (same shape as .mcp.json); repeatable")
	fs.StringVar(&o.AppendSystemPrompt, "append-system-prompt", "", "`TEXT` appended to the system prompt")
	fs.StringVar(&o.SystemPrompt, "system-prompt", "", "`TEXT` replacing hew's system prompt core")
	fs.StringVar(&o.InputFormat, "input-format", "text", "`FORMAT` of stdin: text, or stream-json (one user message per JSON line, one turn each)")
	fs.BoolVar(&o.TrustProject, "trust-project", false, "apply this project's settings that run code or widen permissions without asking")
	fs.BoolVar(&o.Verbose, "verbose", false, "show full tool results and timings")
	fs.BoolVar(&o.NoSandbox, "no-sandbox", false, "run shell commands without the sandbox (explicit; no permission mode implies it)")
	fs.BoolVar(&o.Version, "version", false, "print the version and exit")
	fs.BoolVarP(&o.Help, "help", "h", false, "show this help")
	cmdutil.ClaudeAliases(fs)
	return fs
}

// Parse parses the root command line (args without the program name).
func Parse(args []string) (*Options, error) {
	o := &Options{}
	fs := newFlagSet(o)
	if err := fs.Parse(cmdutil.ExpandRuleFlags(cmdutil.OptionalValue(args, "resume", "r", ResumePick))); err != nil {
		return nil, fmt.Errorf("%w (see hew --help)", err)
	}
	if o.Help {
		return o, ErrHelp
	}
	o.ResumeSet = fs.Changed("resume")
	o.Args = fs.Args()
	return o, o.validate()
}

// validate checks what the flags say together; the format names are the
// headless front-end's to check (internal/ui/headless.CheckFormats).
func (o *Options) validate() error {
	if err := o.Perms.Check(); err != nil {
		return err
	}
	// A machine-readable format only makes sense headless, and a program
	// writing stream-json on stdin cannot be asked on the terminal.
	if o.OutputFormat != "text" || o.InputFormat == "stream-json" {
		o.Print = true
	}
	if err := o.ProviderFlags().Check(); err != nil {
		return err
	}
	if o.MaxTurns < 1 {
		return fmt.Errorf("--max-turns must be at least 1, got %d", o.MaxTurns)
	}
	if o.MaxBudgetTokens < 0 || o.MaxCostUSD < 0 {
		return errors.New("--max-budget-tokens and --max-cost-usd must not be negative")
	}
	if o.Continue && o.ResumeSet {
		return errors.New("use either -c/--continue or --resume, not both")
	}
	return nil
}

// Help renders the root --help text.
func Help() string {
	var o Options
	return rootUsage + cmdutil.FlagUsages(newFlagSet(&o)) + rootUsageFooter
}

// ProviderFlags are the flags that pick the provider.
func (o *Options) ProviderFlags() pick.Flags {
	return pick.Flags{Mock: o.Mock, Provider: o.Provider, Model: o.Model, APIBase: o.APIBase}
}
