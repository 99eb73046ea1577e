// Package anthropic speaks Anthropic's Messages API over plain net/http:
// streaming, prompt caching, extended thinking and the shared retry policy.
// It reads no environment variables; the app passes keys and URLs in.
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/retry"
)

// DefaultBaseURL is Anthropic's API host; /v1/messages is appended.
const DefaultBaseURL = "https://api.anthropic.com"

// APIVersion is the anthropic-version header hew speaks.
const APIVersion = "2023-06-01"

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
}

// Client is an llm.Provider for the Messages API.
type Client struct {
	cfg Config
	url string
	// official is true for Anthropic's own API, which takes only signed thinking.
	official bool
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
	official := false
	if u, err := url.Parse(cfg.BaseURL); err == nil {
		official = strings.HasSuffix(strings.ToLower(u.Hostname()), "anthropic.com")
	}
	return &Client{cfg: cfg, url: MessagesURL(cfg.BaseURL), official: official, msgs: newMsgCache()}
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
	body, print, err := encodeRequestCached(req, true, !c.official, c.msgs)
	if err != nil {
		return nil, err
	}
	var resp *llm.Response
	err = c.cfg.Retry.Do(ctx, func(ctx context.Context) error {
		r, err := c.attempt(ctx, body, onEvent)
		if err == nil {
			resp = r
		}
		return err
	}, onEvent)
	if err != nil {
		return nil, err
	}
	if resp.Model == "" {
		resp.Model = req.Model
	}
	resp.Wire = print
	return resp, nil
}

func (c *Client) attempt(parent context.Context, body []byte, onEvent func(llm.Event)) (*llm.Response, error) {
	ctx, idle, stop := retry.WithIdle(parent, c.cfg.IdleTimeout)
	defer stop()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("anthropic-version", APIVersion)
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
