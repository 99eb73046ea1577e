package mockserver

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/anthropic"
	"github.com/hew-dev/hew/internal/llm/mock"
)

// checkDeferred applies the Messages API's rules for deferred tools (tool
// search) to a parsed request, the way the real API refuses them: tools
// with defer_loading and tool_reference blocks need the beta header, at
// least one tool must be sent in full, and every reference must name a
// tool sent with defer_loading. It returns the refusal ("" for none).
func checkDeferred(h http.Header, req *llm.Request) string {
	deferred := map[string]bool{}
	for _, t := range req.DeferredTools {
		deferred[t.Name] = true
	}
	beta := hasBeta(h, anthropic.ToolSearchBeta)
	if len(req.DeferredTools) > 0 {
		if !beta {
			return fmt.Sprintf("tools.%d.custom.defer_loading: Extra inputs are not permitted (defer_loading needs the anthropic-beta header %s)", len(req.Tools), anthropic.ToolSearchBeta)
		}
		if len(req.Tools) == 0 {
			return "tools: all tools have defer_loading set; at least one tool must be sent without defer_loading"
		}
	}
	for i, m := range req.Messages {
		for j, b := range m.Content {
			for _, n := range b.ToolRefs {
				switch {
				case !beta:
					return fmt.Sprintf("messages.%d.content.%d: tool_reference blocks need the anthropic-beta header %s", i, j, anthropic.ToolSearchBeta)
				case !deferred[n]:
					return fmt.Sprintf("messages.%d.content.%d: tool_reference names %q, which is not a tool in tools with defer_loading: true", i, j, n)
				}
			}
		}
	}
	return ""
}

// unloadedCall names the first planned call of a deferred tool that no
// tool_result has referenced yet: the real model does not see such a
// tool, so a scenario calling it shows hew failed to load it.
func unloadedCall(req *llm.Request, pl mock.Plan) string {
	deferred := map[string]bool{}
	for _, t := range req.DeferredTools {
		deferred[t.Name] = true
	}
	loaded := map[string]bool{}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			for _, n := range b.ToolRefs {
				loaded[n] = true
			}
		}
	}
	for _, c := range pl.ToolCalls {
		if deferred[c.Name] && !loaded[c.Name] {
			return fmt.Sprintf("mock-server: scenario turn %d calls %q, a deferred tool that no tool_result has loaded yet (the model could not see it)", pl.Turn, c.Name)
		}
	}
	return ""
}

// hasBeta reports whether the anthropic-beta headers list name.
func hasBeta(h http.Header, name string) bool {
	for _, v := range h.Values("anthropic-beta") {
		for _, p := range strings.Split(v, ",") {
			if strings.TrimSpace(p) == name {
				return true
			}
		}
	}
	return false
}
