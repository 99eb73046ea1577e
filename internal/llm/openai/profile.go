package openai

import (
	"net/url"
	"sort"
	"strings"
)

// Profile records what one family of OpenAI-compatible servers accepts, so
// hew sends each only what it understands. Each field answers a 400 seen in
// the field (see the research notes on protocol quirks).
type Profile struct {
	Name string
	// MaxTokensField is "max_tokens", "max_completion_tokens", or "" to omit.
	MaxTokensField string
	// StreamUsage sends stream_options.include_usage.
	StreamUsage bool
	// EchoReasoning sends reasoning_content back on assistant messages with
	// tool calls (DeepSeek rejects the follow-up request otherwise).
	EchoReasoning bool
	// ToolCallContent is the content of a tool-call-only assistant message:
	// "null", "empty" ("") or "omit".
	ToolCallContent string
	// ToolIDFormat "alnum9" maps tool call ids to 9 alphanumerics (Mistral).
	ToolIDFormat string
	// MaxTools is the largest tools array the server takes (0 = no limit).
	MaxTools int
	// StripSchemaKeys are JSON-schema keywords removed before sending.
	StripSchemaKeys []string
	// ThinkTags reads a leading <think>…</think> in content as reasoning.
	ThinkTags bool
	// ReasoningEffort sends reasoning_effort when thinking is asked for on a
	// reasoning model.
	ReasoningEffort bool
}

// Profiles are the built-in profiles by name.
var Profiles = map[string]Profile{
	"openai": {Name: "openai", MaxTokensField: "max_completion_tokens", StreamUsage: true,
		ToolCallContent: "null", MaxTools: 128, StripSchemaKeys: []string{"$schema"}, ReasoningEffort: true},
	"deepseek": {Name: "deepseek", MaxTokensField: "max_tokens", StreamUsage: true, EchoReasoning: true,
		ToolCallContent: "empty", MaxTools: 128, StripSchemaKeys: []string{"$schema"}, ThinkTags: true},
	"ollama": {Name: "ollama", MaxTokensField: "max_tokens", StreamUsage: true,
		ToolCallContent: "empty", StripSchemaKeys: []string{"$schema"}, ThinkTags: true},
	"openrouter": {Name: "openrouter", MaxTokensField: "max_tokens", StreamUsage: true,
		ToolCallContent: "empty", MaxTools: 128, StripSchemaKeys: []string{"$schema"}, ThinkTags: true},
	"mistral": {Name: "mistral", MaxTokensField: "max_tokens", StreamUsage: false,
		ToolCallContent: "empty", ToolIDFormat: "alnum9", MaxTools: 128, StripSchemaKeys: []string{"$schema"}},
	"gemini": {Name: "gemini", MaxTokensField: "max_tokens", StreamUsage: true, ToolCallContent: "empty",
		MaxTools: 128, StripSchemaKeys: []string{"$schema", "$id", "$comment", "additionalProperties", "examples"}, ThinkTags: true},
	"generic": {Name: "generic", MaxTokensField: "max_tokens", StreamUsage: true,
		ToolCallContent: "empty", MaxTools: 128, StripSchemaKeys: []string{"$schema"}, ThinkTags: true},
}

// ProfileNames lists the built-in profiles, sorted.
func ProfileNames() []string {
	var n []string
	for k := range Profiles {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// DetectProfile picks a profile from the server address and model name.
// Anything unrecognised (vLLM, llama.cpp, LM Studio, gateways) is generic.
func DetectProfile(baseURL, model string) Profile {
	host := ""
	if u, err := url.Parse(baseURL); err == nil {
		host = strings.ToLower(u.Host)
	}
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 && !strings.Contains(host, "openrouter") {
		m = m[i+1:]
	}
	switch {
	case strings.Contains(host, "openrouter"):
		return Profiles["openrouter"]
	case strings.HasSuffix(host, "openai.com") || strings.HasSuffix(host, "openai.azure.com"):
		return Profiles["openai"]
	case strings.Contains(host, "deepseek") || strings.HasPrefix(m, "deepseek"):
		return Profiles["deepseek"]
	case strings.Contains(host, "mistral") || strings.HasPrefix(m, "mistral") ||
		strings.HasPrefix(m, "codestral") || strings.HasPrefix(m, "devstral") || strings.HasPrefix(m, "magistral"):
		return Profiles["mistral"]
	case strings.Contains(host, "generativelanguage") || strings.HasPrefix(m, "gemini"):
		return Profiles["gemini"]
	case strings.HasSuffix(host, ":11434") || strings.Contains(host, "ollama"):
		return Profiles["ollama"]
	}
	return Profiles["generic"]
}
