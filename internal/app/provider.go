package app

import (
	"errors"
	"fmt"
	"strings"
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

// choice is the provider picked for a run, with where each part came from.
type choice struct {
	Name      string // anthropic | openai | mock
	Model     string
	BaseURL   string
	APIKey    string
	AuthToken string
	// KeyVar names the variable the credential came from ("" for none).
	KeyVar string
	// Why says which rule picked the provider, for doctor and errors.
	Why string
}

// errNoProvider is the "no key" usage error (exit 2).
var errNoProvider = errors.New(`no model provider configured.
Set one of:
  ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)    Anthropic
  OPENAI_API_KEY (+ OPENAI_BASE_URL)             OpenAI or any compatible server
  AGENT_API_KEY (+ AGENT_BASE_URL, AGENT_MODEL)  an OpenAI-compatible endpoint, DeepSeek by default
  HEW_PROVIDER=anthropic|openai|mock             to pick one explicitly
or run with --mock to try hew on the built-in offline model`)

// chooseProvider applies SPEC section 2: first match wins. settingsProvider
// and settingsModel come from the settings files and rank below the
// environment's explicit HEW_PROVIDER / HEW_MODEL.
func chooseProvider(o *options, env envMap, settingsProvider, settingsModel string) (choice, error) {
	var c choice
	switch {
	case o.mock || o.provider == "mock":
		c.Name, c.Why = "mock", "--mock"
	case o.provider != "":
		c.Name, c.Why = o.provider, "--provider "+o.provider
	case env.get("HEW_PROVIDER") != "":
		c.Name, c.Why = env.get("HEW_PROVIDER"), "HEW_PROVIDER"
	case settingsProvider != "":
		c.Name, c.Why = settingsProvider, `"provider" in settings`
	case env.get("OPENAI_API_KEY") != "" && env.get("OPENAI_BASE_URL") != "":
		c.Name, c.Why = "openai", "OPENAI_API_KEY with OPENAI_BASE_URL"
	case env.get("ANTHROPIC_API_KEY") != "" || env.get("ANTHROPIC_AUTH_TOKEN") != "":
		c.Name, c.Why = "anthropic", "ANTHROPIC_API_KEY"
		if env.get("ANTHROPIC_API_KEY") == "" {
			c.Why = "ANTHROPIC_AUTH_TOKEN"
		}
	case env.get("OPENAI_API_KEY") != "":
		c.Name, c.Why = "openai", "OPENAI_API_KEY"
	case env.get("AGENT_API_KEY") != "":
		c.Name, c.Why = "openai", "AGENT_API_KEY"
	default:
		return c, errNoProvider
	}
	c.Name = strings.ToLower(strings.TrimSpace(c.Name))
	var defModel string
	switch c.Name {
	case "mock":
		defModel = mockModel
	case "anthropic":
		c.APIKey, c.AuthToken = env.get("ANTHROPIC_API_KEY"), env.get("ANTHROPIC_AUTH_TOKEN")
		c.KeyVar = "ANTHROPIC_API_KEY"
		if c.APIKey == "" && c.AuthToken != "" {
			c.KeyVar = "ANTHROPIC_AUTH_TOKEN"
		}
		c.BaseURL = firstNonEmpty(o.apiBase, env.get("ANTHROPIC_BASE_URL"))
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
		agentRoute := env.get("OPENAI_API_KEY") == "" && env.get("OPENAI_BASE_URL") == "" && env.get("AGENT_API_KEY") != ""
		if agentRoute {
			c.APIKey, c.KeyVar = env.get("AGENT_API_KEY"), "AGENT_API_KEY"
			c.BaseURL = firstNonEmpty(o.apiBase, env.get("AGENT_BASE_URL"), defaultAgentBase)
			defModel = firstNonEmpty(env.get("AGENT_MODEL"), defaultAgentModel)
		} else {
			c.APIKey, c.KeyVar = env.get("OPENAI_API_KEY"), "OPENAI_API_KEY"
			c.BaseURL = firstNonEmpty(o.apiBase, env.get("OPENAI_BASE_URL"))
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
		c.Model = firstNonEmpty(o.model, mockModel)
		return c, nil
	}
	c.Model = firstNonEmpty(o.model, env.get("HEW_MODEL"), settingsModel, defModel)
	if c.KeyVar == "AGENT_API_KEY" { // AGENT_MODEL belongs to its endpoint
		c.Model = firstNonEmpty(o.model, env.get("HEW_MODEL"), defModel)
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

// envMap is the process environment as values (the last definition wins).
type envMap map[string]string

func newEnvMap(environ []string) envMap {
	m := envMap{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[k] = v
		}
	}
	return m
}

func (e envMap) get(k string) string { return e[k] }

func (e envMap) lookup(k string) (string, bool) {
	v, ok := e[k]
	return v, ok
}
