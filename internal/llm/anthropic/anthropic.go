// Package anthropic speaks Anthropic's Messages API over plain net/http:
// streaming, prompt caching, extended thinking and the shared retry policy.
// It reads no environment variables; the app passes keys and URLs in.
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/retry"
)

// DefaultBaseURL is Anthropic's API host; /v1/messages is appended.
const DefaultBaseURL = "https://api.anthropic.com"

// APIVersion is the anthropic-version header hew speaks.
const APIVersion = "2023-06-01"

// ToolSearchBeta is the anthropic-beta value under which tools may be sent
// with defer_loading and tool results may carry tool_reference blocks.
const ToolSearchBeta = "advanced-tool-use-2025-11-20"

// ToolSearch says when deferred tools are loaded natively: sent from the
// first request with defer_loading and loaded by tool_reference blocks in
// tool_search's results, so loading one never changes the cached prefix.
type ToolSearch string

// ToolSearch settings.
const (
	// ToolSearchAuto: native on Anthropic's own endpoint for models that
	// support it (llm.ModelInfo.ToolSearch), client-side elsewhere: other
	// Anthropic-compatible servers get the tool list as SPEC section 4 says.
	ToolSearchAuto ToolSearch = ""
	ToolSearchOn   ToolSearch = "on"
	ToolSearchOff  ToolSearch = "off"
)

// ParseToolSearch reads ENABLE_TOOL_SEARCH (named as in Claude Code):
// true/1/on/yes forces native loading on, false/0/off/no off; "", "auto"
// or Claude Code's "auto:N" is ToolSearchAuto.
func ParseToolSearch(s string) (ToolSearch, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if strings.HasPrefix(v, "auto:") {
		v = "auto"
	}
	switch v {
	case "", "auto":
		return ToolSearchAuto, nil
	case "true", "1", "on", "yes":
		return ToolSearchOn, nil
	case "false", "0", "off", "no":
		return ToolSearchOff, nil
	}
	return ToolSearchAuto, fmt.Errorf("ENABLE_TOOL_SEARCH=%q: want true, false or auto", s)
}

// Config is everything the client needs; zero fields get defaults.
type Config struct {
	// APIKey is sent as x-api-key; AuthToken, when set, as a Bearer token instead.
	APIKey    string
	AuthToken string
	// BaseURL is http(s)://host[:port] without /v1 (the SDK convention).
	BaseURL    string
	HTTPClient *http.Client
	// Retry is the retry policy (nil = retry.Default()).
	Retry *retry.Policy
	// IdleTimeout aborts and retries a request whose server sends nothing for
	// this long (default 10 minutes; streams send pings far more often).
	IdleTimeout time.Duration
	// ToolSearch says when deferred tools are loaded natively.
	ToolSearch ToolSearch
}

// Client is an llm.Provider for the Messages API.
type Client struct {
	cfg Config
	url string
	// official is true for Anthropic's own API, which takes only signed thinking.
	official bool
	// ownHost is true for Anthropic's own endpoint, where ToolSearchAuto
	// loads deferred tools natively.
	ownHost bool
	// nativeRefused is set once the server refused native tool loading;
	// the session goes on client-side.
	nativeRefused atomic.Bool
	// msgs keeps the encoding of messages already sent.
	msgs *msgCache
}

// New makes a client. It does not contact the server.
func New(cfg Config) *Client {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Retry == nil {
		cfg.Retry = retry.Default()
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = 10 * time.Minute
	}
	official, own := false, false
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		host := strings.ToLower(u.Hostname())
		official = strings.HasSuffix(host, "anthropic.com")
		own = host == "api.anthropic.com" && u.Scheme == "https"
	}
	return &Client{cfg: cfg, url: MessagesURL(cfg.BaseURL), official: official, ownHost: own, msgs: newMsgCache()}
}

// DefersNatively implements llm.NativeDeferrer: deferred tools go out with
// defer_loading and are loaded by tool_reference blocks, unless the
// setting or the endpoint and model say otherwise, or the server refused.
func (c *Client) DefersNatively(model string) bool {
	if c.nativeRefused.Load() {
		return false
	}
	switch c.cfg.ToolSearch {
	case ToolSearchOn:
		return true
	case ToolSearchOff:
		return false
	}
	return c.ownHost && llm.LookupModel(model).ToolSearch
}

// MessagesURL appends /v1/messages to a base URL, tolerating a trailing /v1.
func MessagesURL(base string) string {
	base = strings.TrimRight(base, "/")
	base = strings.TrimSuffix(base, "/v1")
	return base + "/v1/messages"
}

// Name is the provider name shown to users.
func (c *Client) Name() string { return "anthropic" }

// Stream sends req and streams the answer. Retries restart the whole request
// and are announced with EvRetry; on error or cancellation no partial answer
// is returned.
func (c *Client) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	if onEvent == nil {
		onEvent = func(llm.Event) {}
	}
	opts := encOpts{replayUnsigned: !c.official, native: c.DefersNatively(req.Model)}
	body, print, native, err := encodeRequestCached(req, true, opts, c.msgs)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(ctx, body, native, onEvent)
	if err != nil && native && badRequest(err) {
		// Fail safe: a server that refuses native tool loading gets the
		// request again the client-side way, and the session goes on so.
		// A 400 that names it turns it off at once; any other 400 only if
		// the client-side request then succeeds (else it was not native's
		// doing, and the first error stands).
		named := nativeRefusal(err)
		refused := func() {
			c.nativeRefused.Store(true)
			onEvent(llm.Event{Type: llm.EvNotice, Err: err, Text: "the server refused native tool loading (" + err.Error() +
				"); deferred tools now join the tool list when loaded, which costs a cache miss each time (set ENABLE_TOOL_SEARCH=false to skip this)"})
		}
		if named {
			refused()
		}
		opts.native = false
		body2, print2, _, err2 := encodeRequestCached(req, true, opts, c.msgs)
		if err2 != nil {
			return nil, err2
		}
		resp2, err2 := c.send(ctx, body2, false, onEvent)
		if err2 == nil && !named {
			refused()
		}
		if err2 == nil || named {
			resp, err, print = resp2, err2, print2
		}
	}
	if err != nil {
		return nil, err
	}
	if resp.Model == "" {
		resp.Model = req.Model
	}
	resp.Wire = print
	return resp, nil
}

// send posts body under the retry policy.
func (c *Client) send(ctx context.Context, body []byte, native bool, onEvent func(llm.Event)) (*llm.Response, error) {
	var resp *llm.Response
	err := c.cfg.Retry.Do(ctx, func(ctx context.Context) error {
		r, err := c.attempt(ctx, body, native, onEvent)
		if err == nil {
			resp = r
		}
		return err
	}, onEvent)
	return resp, err
}

// badRequest reports whether err is a 400 that a different encoding of the
// same request might pass (not a prompt too long for the window).
func badRequest(err error) bool {
	var ae *llm.APIError
	return errors.As(err, &ae) && ae.Status == http.StatusBadRequest && !ae.PromptTooLong()
}

// nativeRefusal reports whether err is a server refusing what native tool
// loading sends: a 400 naming defer_loading, tool_reference or the beta.
func nativeRefusal(err error) bool {
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest {
		return false
	}
	m := strings.ToLower(ae.Message)
	for _, w := range []string{"defer_loading", "tool_reference", "advanced-tool-use", "anthropic-beta", "beta"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

func (c *Client) attempt(parent context.Context, body []byte, native bool, onEvent func(llm.Event)) (*llm.Response, error) {
	ctx, idle, stop := retry.WithIdle(parent, c.cfg.IdleTimeout)
	defer stop()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("anthropic-version", APIVersion)
	if native {
		hr.Header.Set("anthropic-beta", ToolSearchBeta)
	}
	hr.Header.Set("User-Agent", "hew")
	if c.cfg.AuthToken != "" {
		hr.Header.Set("Authorization", "Bearer "+c.cfg.AuthToken)
	} else if c.cfg.APIKey != "" {
		hr.Header.Set("x-api-key", c.cfg.APIKey)
	}
	res, err := c.cfg.HTTPClient.Do(hr)
	if err != nil {
		return nil, retry.Check(parent, ctx, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		typ, msg := readError(res.Body)
		return nil, retry.HTTPError(res.StatusCode, res.Header, typ, msg)
	}
	idle.Kick()
	r, err := decodeStream(res.Body, onEvent, func() error { idle.Kick(); return ctx.Err() })
	if err != nil {
		if parent.Err() != nil {
			return nil, parent.Err()
		}
		return nil, retry.Check(parent, ctx, err)
	}
	return r, nil
}

// readError extracts the error type and message from an error body in either
// protocol's shape, falling back to the body text.
func readError(r io.Reader) (typ, msg string) {
	data, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	var e struct {
		Error json.RawMessage `json:"error"`
		Msg   string          `json:"message"`
	}
	if json.Unmarshal(data, &e) == nil {
		var inner struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &inner) == nil && inner.Message != "" {
			return inner.Type, inner.Message
		}
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return "", s
		}
		if e.Msg != "" {
			return "", e.Msg
		}
	}
	s := strings.TrimSpace(string(data))
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return "", s
}
