// Package mockserver is `hew mock-server`: a real HTTP server that speaks
// the Anthropic Messages and OpenAI Chat Completions APIs (streaming and
// not) from one scenario file, with fault injection, and that checks every
// request it receives is a well-formed conversation. Tests point the real
// clients at it; users point hew (or their CI) at it.
package mockserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/mock"
	"github.com/hew-dev/hew/internal/llm/scenario"
)

// Request is one captured request.
type Request struct {
	Path    string
	Header  http.Header
	Body    []byte
	Purpose llm.Purpose
	// Parsed is the request in neutral form (nil when it did not parse).
	Parsed *llm.Request
	// Violations lists what was wrong with the conversation it carried.
	Violations []string
	// Status is the HTTP status the server answered with.
	Status int
}

// Server is a running mock server.
type Server struct {
	engine *mock.Engine
	srv    *http.Server
	ln     net.Listener
	url    string
	// Log, when set, gets one line per request.
	Log io.Writer

	mu    sync.Mutex
	reqs  []Request
	logMu sync.Mutex
	done  chan struct{}
}

// Start listens on addr ("" = 127.0.0.1:0) and serves sc (nil = the
// offline intents) until Close.
func Start(sc *scenario.Scenario, addr string) (*Server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mock-server: listen on %s: %w", addr, err)
	}
	s := &Server{engine: mock.NewEngine(sc), ln: ln, url: "http://" + ln.Addr().String(), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.handleAnthropic)
	mux.HandleFunc("POST /v1/chat/completions", s.handleOpenAI)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"type":"not_found_error","message":"the mock server serves POST /v1/messages and POST /v1/chat/completions"}}`, http.StatusNotFound)
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is the base address, http://127.0.0.1:PORT. Anthropic clients use it
// as is; OpenAI clients append /v1.
func (s *Server) URL() string { return s.url }

// Close stops the server and drops open connections.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	return err
}

// Shutdown stops accepting requests and waits for open ones until ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		err = s.srv.Close()
	}
	<-s.done
	return err
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Violations returns every conversation error seen, prefixed by request number.
func (s *Server) Violations() []string {
	var out []string
	for i, r := range s.Requests() {
		for _, v := range r.Violations {
			out = append(out, fmt.Sprintf("request %d (%s): %s", i+1, r.Path, v))
		}
	}
	return out
}

// Remaining reports scenario turns not yet served.
func (s *Server) Remaining() int { return s.engine.Remaining() }

func (s *Server) record(r Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	return len(s.reqs) - 1
}

func (s *Server) setStatus(i, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs[i].Status = status
}

func (s *Server) logf(format string, args ...any) {
	if s.Log != nil {
		s.logMu.Lock()
		defer s.logMu.Unlock()
		fmt.Fprintf(s.Log, format+"\n", args...)
	}
}

// Validate checks the conversation rules both APIs enforce: every tool_use
// is answered by a tool_result with the same id, in order, in the very next
// user message, tool results come first in it, and no result is orphaned.
func Validate(msgs []llm.Message) []string {
	var v []string
	seen := map[string]bool{}
	for i, m := range msgs {
		if m.Role != llm.RoleUser && m.Role != llm.RoleAssistant {
			v = append(v, fmt.Sprintf("message %d: unknown role %q", i, m.Role))
		}
		var results []llm.Block
		textBefore := false
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockToolResult:
				if textBefore {
					v = append(v, fmt.Sprintf("message %d: tool_result %s comes after other content", i, b.ID))
				}
				results = append(results, b)
			case llm.BlockToolUse:
				if m.Role != llm.RoleAssistant {
					v = append(v, fmt.Sprintf("message %d: tool_use %s in a %s message", i, b.ID, m.Role))
				}
				if b.ID == "" {
					v = append(v, fmt.Sprintf("message %d: tool_use %s without an id", i, b.Name))
				} else if seen[b.ID] {
					v = append(v, fmt.Sprintf("message %d: tool_use id %s used twice", i, b.ID))
				}
				seen[b.ID] = true
			default:
				textBefore = true
			}
		}
		var uses []llm.Block
		if i > 0 && msgs[i-1].Role == llm.RoleAssistant {
			uses = msgs[i-1].ToolUses()
		}
		if len(results) > 0 && m.Role != llm.RoleUser {
			v = append(v, fmt.Sprintf("message %d: tool_result in a %s message", i, m.Role))
		}
		if len(uses) == 0 && len(results) > 0 {
			v = append(v, fmt.Sprintf("message %d: tool_result %s answers no tool_use in the message before", i, results[0].ID))
			continue
		}
		if len(uses) == 0 {
			continue
		}
		for k, u := range uses {
			switch {
			case k >= len(results):
				v = append(v, fmt.Sprintf("message %d: tool_use %s (%s) has no tool_result", i-1, u.ID, u.Name))
			case results[k].ID != u.ID:
				v = append(v, fmt.Sprintf("message %d: tool_result %d answers %s, want %s (ids must match in order)", i, k, results[k].ID, u.ID))
			}
		}
		for k := len(uses); k < len(results); k++ {
			v = append(v, fmt.Sprintf("message %d: extra tool_result %s", i, results[k].ID))
		}
	}
	if n := len(msgs); n > 0 && msgs[n-1].Role == llm.RoleAssistant && len(msgs[n-1].ToolUses()) > 0 {
		v = append(v, fmt.Sprintf("message %d: ends with tool_use calls that have no tool_result", n-1))
	}
	return v
}
