package app

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/hew-dev/hew/internal/cmd/cmdutil"
	"github.com/hew-dev/hew/internal/permission"
	"github.com/hew-dev/hew/internal/ui/headless"
)

// options are the root command's flags (SPEC section 1).
type options struct {
	print              bool
	outputFormat       string
	provider           string
	mock               bool
	model              string
	apiBase            string
	perms              permission.Flags // mode, rules and directories of this run
	maxTurns           int
	goal               string
	maxBudgetTokens    int
	maxCostUSD         float64
	cont               bool
	resume             string
	resumeSet          bool // --resume given, with or without an id
	mcpConfig          []string
	appendSystemPrompt string
	verbose            bool
	trustProject       bool
	systemPrompt       string
	inputFormat        string
	noSandbox          bool
	version            bool
	help               bool

	args []string // positional arguments (the prompt)
}

// errHelp is returned by parseFlags when --help was asked for.
var errHelp = errors.New("help requested")

// resumePick is the --resume value meaning "no id given: pick one".
const resumePick = "\x00pick"

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
func newFlagSet(o *options) *pflag.FlagSet {
	fs := pflag.NewFlagSet("hew", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	fs.BoolVarP(&o.print, "print", "p", false, "headless: never ask; whatever would ask is denied and listed in permission_denials")
	fs.StringVar(&o.outputFormat, "output-format", "text", "`FORMAT` of headless output: text, json (one result object) or stream-json (one event per line)")
	fs.StringVar(&o.provider, "provider", "", "model backend `NAME`: anthropic, openai or mock")
	fs.BoolVar(&o.mock, "mock", false, "the built-in offline model (same as --provider mock)")
	fs.StringVar(&o.model, "model", "", "`NAME` of the model (default: HEW_MODEL, settings, or the provider's default)")
	fs.StringVar(&o.apiBase, "api-base", "", "endpoint `URL`, in the form of the provider's base URL variable")
	cmdutil.PermissionFlags(fs, &o.perms)
	fs.IntVar(&o.maxTurns, "max-turns", 50, "at most `N` model round trips per user message")
	fs.StringVar(&o.goal, "goal", "", "keep working until an evaluator judges `CONDITION` met")
	fs.IntVar(&o.maxBudgetTokens, "max-budget-tokens", 0, "stop the run after `N` tokens (0 = no limit)")
	fs.Float64Var(&o.maxCostUSD, "max-cost-usd", 0, "stop the run after an estimated cost of `USD` (0 = no limit)")
	fs.BoolVarP(&o.cont, "continue", "c", false, "resume the most recent session of this working directory")
	fs.StringVarP(&o.resume, "resume", "r", "", "resume a session by id (no `[ID]`: pick from this directory's sessions)")
	fs.StringArrayVar(&o.mcpConfig, "mcp-config", nil, "extra MCP server config `FILE` (same shape as .mcp.json); repeatable")
	fs.StringVar(&o.appendSystemPrompt, "append-system-prompt", "", "`TEXT` appended to the system prompt")
	fs.StringVar(&o.systemPrompt, "system-prompt", "", "`TEXT` replacing hew's system prompt core")
	fs.StringVar(&o.inputFormat, "input-format", "text", "`FORMAT` of stdin: text, or stream-json (one user message per JSON line, one turn each)")
	fs.BoolVar(&o.trustProject, "trust-project", false, "apply this project's settings that run code or widen permissions without asking")
	fs.BoolVar(&o.verbose, "verbose", false, "show full tool results and timings")
	fs.BoolVar(&o.noSandbox, "no-sandbox", false, "run shell commands without the sandbox (explicit; no permission mode implies it)")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.BoolVarP(&o.help, "help", "h", false, "show this help")
	cmdutil.ClaudeAliases(fs)
	return fs
}

// parseFlags parses the root command line (args without the program name).
func parseFlags(args []string) (*options, error) {
	o := &options{}
	fs := newFlagSet(o)
	if err := fs.Parse(cmdutil.ExpandRuleFlags(cmdutil.OptionalValue(args, "resume", "r", resumePick))); err != nil {
		return nil, fmt.Errorf("%w (see hew --help)", err)
	}
	if o.help {
		return o, errHelp
	}
	o.resumeSet = fs.Changed("resume")
	o.args = fs.Args()
	return o, o.validate()
}

func (o *options) validate() error {
	if err := o.perms.Check(); err != nil {
		return err
	}
	if err := headless.CheckFormats(o.outputFormat, o.inputFormat); err != nil {
		return err
	}
	// A machine-readable format only makes sense headless, and a program
	// writing stream-json on stdin cannot be asked on the terminal.
	if o.outputFormat != "text" || o.inputFormat == "stream-json" {
		o.print = true
	}
	if err := o.providerFlags().Check(); err != nil {
		return err
	}
	if o.maxTurns < 1 {
		return fmt.Errorf("--max-turns must be at least 1, got %d", o.maxTurns)
	}
	if o.maxBudgetTokens < 0 || o.maxCostUSD < 0 {
		return errors.New("--max-budget-tokens and --max-cost-usd must not be negative")
	}
	if o.cont && o.resumeSet {
		return errors.New("use either -c/--continue or --resume, not both")
	}
	return nil
}

// rootHelp renders the root --help text.
func rootHelp() string {
	var o options
	return rootUsage + cmdutil.FlagUsages(newFlagSet(&o)) + rootUsageFooter
}
