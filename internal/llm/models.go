package llm

import "strings"

// ModelInfo is what hew knows about a model: its limits and list prices in
// USD per million tokens. Prices are estimates from public price lists.
type ModelInfo struct {
	ContextWindow int
	MaxOutput     int
	// Thinking reports support for extended thinking (Anthropic).
	Thinking bool
	// Prices per million tokens; Known is false when hew has no price.
	Input, Output, CacheRead, CacheWrite float64
	Known                                bool
	// ToolSearch reports support for client-side tool search with
	// deferred definitions (Anthropic defer_loading + tool_reference):
	// Claude Sonnet/Opus 4 and later, Haiku 4.5 and later.
	ToolSearch bool
}

// modelTable maps a model-name prefix to its info. Longest prefix wins.
var modelTable = map[string]ModelInfo{
	"claude-opus-4":     {200000, 32000, true, 15, 75, 1.5, 18.75, true, true},
	"claude-opus-4-5":   {200000, 64000, true, 5, 25, 0.5, 6.25, true, true},
	"claude-sonnet-4":   {200000, 64000, true, 3, 15, 0.3, 3.75, true, true},
	"claude-3-7-sonnet": {200000, 64000, true, 3, 15, 0.3, 3.75, true, false},
	"claude-3-5-sonnet": {200000, 8192, false, 3, 15, 0.3, 3.75, true, false},
	"claude-haiku-4":    {200000, 64000, true, 1, 5, 0.1, 1.25, true, false},
	"claude-haiku-4-5":  {200000, 64000, true, 1, 5, 0.1, 1.25, true, true},
	"claude-3-5-haiku":  {200000, 8192, false, 0.8, 4, 0.08, 1, true, false},
	"gpt-4o":            {128000, 16384, false, 2.5, 10, 1.25, 0, true, false},
	"gpt-4o-mini":       {128000, 16384, false, 0.15, 0.6, 0.075, 0, true, false},
	"gpt-4.1":           {1047576, 32768, false, 2, 8, 0.5, 0, true, false},
	"gpt-4.1-mini":      {1047576, 32768, false, 0.4, 1.6, 0.1, 0, true, false},
	"gpt-5":             {400000, 128000, false, 1.25, 10, 0.125, 0, true, false},
	"gpt-5-mini":        {400000, 128000, false, 0.25, 2, 0.025, 0, true, false},
	"o3":                {200000, 100000, false, 2, 8, 0.5, 0, true, false},
	"o4-mini":           {200000, 100000, false, 1.1, 4.4, 0.275, 0, true, false},
	"deepseek-chat":     {128000, 8192, false, 0.27, 1.1, 0.07, 0, true, false},
	"deepseek-reasoner": {128000, 64000, false, 0.55, 2.19, 0.14, 0, true, false},
	"mock":              {200000, 32000, false, 0, 0, 0, 0, true, false},
}

// DefaultContextWindow is assumed for models hew does not know.
const DefaultContextWindow = 128000

// LookupModel returns what hew knows about model. Unknown models get a
// default window and Known=false prices.
func LookupModel(model string) ModelInfo {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 { // "anthropic/claude-…" on routers
		m = m[i+1:]
	}
	best, bestLen := ModelInfo{ContextWindow: DefaultContextWindow, MaxOutput: 8192}, 0
	for prefix, info := range modelTable {
		if strings.HasPrefix(m, prefix) && len(prefix) > bestLen {
			best, bestLen = info, len(prefix)
		}
	}
	return best
}

// EstimateCost prices u for model in USD. known is false when hew has no
// price for the model: callers show "unknown", never zero.
func EstimateCost(model string, u Usage) (usd float64, known bool) {
	info := LookupModel(model)
	if !info.Known {
		return 0, false
	}
	const M = 1e6
	return float64(u.InputTokens)*info.Input/M +
		float64(u.OutputTokens)*info.Output/M +
		float64(u.CacheReadTokens)*info.CacheRead/M +
		float64(u.CacheWriteTokens)*info.CacheWrite/M, true
}
