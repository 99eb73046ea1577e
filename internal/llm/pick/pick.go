// Package pick chooses the model provider of a run from the flags, the
// environment and the settings (SPEC section 2: first match wins) and builds
// it. It reads nothing itself: the environment arrives as a function.
package pick

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/anthropic"
	"github.com/hew-dev/hew/internal/llm/mock"
	"github.com/hew-dev/hew/internal/llm/openai"
	"github.com/hew-dev/hew/internal/llm/scenario"
)

// Default endpoints and models per provider. Base URLs follow the vendors'
// SDK convention (SPEC section 2): Anthropic's without /v1, OpenAI-compatible
// ones with it.
const (
	defaultAnthropicBase  = "https://api.anthropic.com"
	defaultOpenAIBase     = "https://api.openai.com/v1"
	defaultAgentBase      = "https://api.deepseek.com/v1"
	defaultAnthropicModel = "claude-sonnet-4-5"
	defaultOpenAIModel    = "gpt-4.1"
	defaultAgentModel     = "deepseek-chat"
	mockModel             = "mock"
)

// Choice is the provider picked for a run, with where each part came from.
type Choice struct {
	Name      string // anthropic | openai | mock
	Model     string
	BaseURL   string
	APIKey    string
	AuthToken string
	// KeyVar names the variable the credential came from ("" for none).
	KeyVar string
	// Why says which rule picked the provider, for doctor and errors.
	Why string
	// ToolSearch is ENABLE_TOOL_SEARCH: whether Anthropic loads deferred
	// tools natively (anthropic.ToolSearch; auto when unset).
	ToolSearch anthropic.ToolSearch
}

// ErrNoProvider is the "no key" error: nothing names a provider.
var ErrNoProvider = errors.New(`no model provider configured.
Set one of:
  ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)    Anthropic
  OPENAI_API_KEY (+ OPENAI_BASE_URL)             OpenAI or any compatible server
  AGENT_API_KEY (+ AGENT_BASE_URL, AGENT_MODEL)  an OpenAI-compatible endpoint, DeepSeek by default
  HEW_PROVIDER=anthropic|openai|mock             to pick one explicitly
or run with --mock to try hew on the built-in offline model`)

// Flags are the command-line flags that pick a provider.
type Flags struct {
	Mock     bool   // --mock
	Provider string // --provider
	Model    string // --model
	APIBase  string // --api-base
}

// Choose applies SPEC section 2: first match wins. env reads the
// environment given to hew; settingsProvider and settingsModel come from
// the settings files and rank below the environment's explicit
// HEW_PROVIDER / HEW_MODEL.
func Choose(o Flags, env func(string) string, settingsProvider, settingsModel string) (Choice, error) {
	var c Choice
	switch {
	case o.Mock || o.Provider == "mock":
		c.Name, c.Why = "mock", "--mock"
	case o.Provider != "":
		c.Name, c.Why = o.Provider, "--provider "+o.Provider
	case env("HEW_PROVIDER") != "":
		c.Name, c.Why = env("HEW_PROVIDER"), "HEW_PROVIDER"
	case settingsProvider != "":
		c.Name, c.Why = settingsProvider, `"provider" in settings`
	case env("OPENAI_API_KEY") != "" && env("OPENAI_BASE_URL") != "":
		c.Name, c.Why = "openai", "OPENAI_API_KEY with OPENAI_BASE_URL"
	case env("ANTHROPIC_API_KEY") != "" || env("ANTHROPIC_AUTH_TOKEN") != "":
		c.Name, c.Why = "anthropic", "ANTHROPIC_API_KEY"
		if env("ANTHROPIC_API_KEY") == "" {
			c.Why = "ANTHROPIC_AUTH_TOKEN"
		}
	case env("OPENAI_API_KEY") != "":
		c.Name, c.Why = "openai", "OPENAI_API_KEY"
	case env("AGENT_API_KEY") != "":
		c.Name, c.Why = "openai", "AGENT_API_KEY"
	default:
		return c, ErrNoProvider
	}
	c.Name = strings.ToLower(strings.TrimSpace(c.Name))
	var defModel string
	switch c.Name {
	case "mock":
		defModel = mockModel
	case "anthropic":
		ts, err := anthropic.ParseToolSearch(env("ENABLE_TOOL_SEARCH"))
		if err != nil {
			return c, err
		}
		c.ToolSearch = ts
		c.APIKey, c.AuthToken = env("ANTHROPIC_API_KEY"), env("ANTHROPIC_AUTH_TOKEN")
		c.KeyVar = "ANTHROPIC_API_KEY"
		if c.APIKey == "" && c.AuthToken != "" {
			c.KeyVar = "ANTHROPIC_AUTH_TOKEN"
		}
		c.BaseURL = firstNonEmpty(o.APIBase, env("ANTHROPIC_BASE_URL"))
		if c.APIKey == "" && c.AuthToken == "" {
			if c.BaseURL == "" { // a custom endpoint (proxy, mock-server) may need no key
				return c, fmt.Errorf("provider anthropic (from %s) needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN; or run with --mock", c.Why)
			}
			c.KeyVar = ""
		}
		if c.BaseURL == "" {
			c.BaseURL = defaultAnthropicBase
		}
		defModel = defaultAnthropicModel
	case "openai":
		agentRoute := env("OPENAI_API_KEY") == "" && env("OPENAI_BASE_URL") == "" && env("AGENT_API_KEY") != ""
		if agentRoute {
			c.APIKey, c.KeyVar = env("AGENT_API_KEY"), "AGENT_API_KEY"
			c.BaseURL = firstNonEmpty(o.APIBase, env("AGENT_BASE_URL"), defaultAgentBase)
			defModel = firstNonEmpty(env("AGENT_MODEL"), defaultAgentModel)
		} else {
			c.APIKey, c.KeyVar = env("OPENAI_API_KEY"), "OPENAI_API_KEY"
			c.BaseURL = firstNonEmpty(o.APIBase, env("OPENAI_BASE_URL"))
			if c.APIKey == "" {
				if c.BaseURL == "" { // local servers (Ollama, llama.cpp) need no key
					return c, fmt.Errorf("provider openai (from %s) needs OPENAI_API_KEY, or OPENAI_BASE_URL for a local server such as Ollama; or run with --mock", c.Why)
				}
				c.KeyVar = ""
			}
			if c.BaseURL == "" {
				c.BaseURL = defaultOpenAIBase
			}
			defModel = defaultOpenAIModel
		}
	default:
		return c, fmt.Errorf("unknown provider %q (from %s): want anthropic, openai or mock", c.Name, c.Why)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.Name == "mock" {
		c.Model = firstNonEmpty(o.Model, mockModel)
		return c, nil
	}
	c.Model = firstNonEmpty(o.Model, env("HEW_MODEL"), settingsModel, defModel)
	if c.KeyVar == "AGENT_API_KEY" { // AGENT_MODEL belongs to its endpoint
		c.Model = firstNonEmpty(o.Model, env("HEW_MODEL"), defModel)
	}
	return c, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// New builds the chosen provider. It is cheap: no connection is made
// before the first request. mockScript is $HEW_MOCK_SCRIPT, the scenario
// the mock provider plays ("" for its built-in answers).
func New(c Choice, mockScript string) (llm.Provider, error) {
	switch c.Name {
	case "anthropic":
		return anthropic.New(anthropic.Config{APIKey: c.APIKey, AuthToken: c.AuthToken, BaseURL: c.BaseURL, ToolSearch: c.ToolSearch}), nil
	case "openai":
		return openai.New(openai.Config{APIKey: c.APIKey, BaseURL: c.BaseURL}), nil
	case "mock":
		var sc *scenario.Scenario
		if mockScript != "" {
			var err error
			if sc, err = scenario.Load(mockScript); err != nil {
				return nil, fmt.Errorf("HEW_MOCK_SCRIPT: %w", err)
			}
		}
		return mock.New(sc), nil
	}
	return nil, fmt.Errorf("provider %s is not available in this build", c.Name)
}
