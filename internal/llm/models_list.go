package llm

import "sort"

// KnownModels lists the model names (prefixes) hew has limits and prices
// for, sorted, so a front-end can tell a typo from a custom model.
func KnownModels() []string {
	out := make([]string, 0, len(modelTable))
	for name := range modelTable {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
