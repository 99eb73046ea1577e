// Package openai speaks the Chat Completions API of OpenAI and of every
// compatible server (DeepSeek, Kimi, GLM, OpenRouter, Ollama, vLLM,
// llama.cpp), tolerating their known stream quirks and sending each only
// the request fields its compatibility profile allows. It reads no
// environment variables; the app passes keys and URLs in.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/hew-dev/hew/internal/llm"
	"github.com/hew-dev/hew/internal/llm/retry"
)

// DefaultBaseURL is OpenAI's API; /chat/completions is appended.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config is everything the client needs; zero fields get defaults.
type Config struct {
	APIKey string
	// BaseURL includes /v1 (the SDK convention): http://host:port/v1.
	BaseURL string
	// Profile names a built-in profile (see Profiles); "" detects one from
	// BaseURL and the model of each request.
	Profile string
	// CustomProfile, when set, is used instead of any named profile.
	CustomProfile *Profile
	HTTPClient    *http.Client
	// Retry is the retry policy (nil = retry.Default()).
	Retry *retry.Policy
	// IdleTimeout aborts and retries a request whose server sends nothing for
	// this long (default 10 minutes: local servers can prefill slowly).
	IdleTimeout time.Duration
}

// Client is an llm.Provider for Chat Completions servers.
type Client struct {
	cfg Config
	url string
}

// CheckProfile validates a profile name from configuration ("" is valid:
// detect from the address and model).
func CheckProfile(name string) error {
	if _, ok := Profiles[name]; name != "" && !ok {
		return fmt.Errorf("unknown OpenAI-compatible profile %q (known: %s)", name, strings.Join(ProfileNames(), ", "))
	}
	return nil
}

// New makes a client. It does not contact the server. An unknown profile
// name falls back to detection; validate names with CheckProfile first.
func New(cfg Config) *Client {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if CheckProfile(cfg.Profile) != nil {
		cfg.Profile = ""
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
	return &Client{cfg: cfg, url: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions"}
}

// Name is the provider name shown to users.
func (c *Client) Name() string { return "openai" }

// ProfileFor is the profile used for requests to model.
func (c *Client) ProfileFor(model string) Profile {
	if c.cfg.CustomProfile != nil {
		return *c.cfg.CustomProfile
	}
	if c.cfg.Profile != "" {
		return Profiles[c.cfg.Profile]
	}
	return DetectProfile(c.cfg.BaseURL, model)
}

// Stream sends req and streams the answer. Retries restart the whole request
// and are announced with EvRetry; on error or cancellation no partial answer
// is returned.
func (c *Client) Stream(ctx context.Context, req *llm.Request, onEvent func(llm.Event)) (*llm.Response, error) {
	if onEvent == nil {
		onEvent = func(llm.Event) {}
	}
	p := c.ProfileFor(req.Model)
	body, err := encodeRequest(req, p, true)
	if err != nil {
		return nil, err
	}
	var resp *llm.Response
	err = c.cfg.Retry.Do(ctx, func(ctx context.Context) error {
		r, err := c.attempt(ctx, body, p, onEvent)
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
	if resp.Usage.Total() == 0 {
		// The server sent no usage (some local servers never do): estimate
		// at four bytes a token so budgets and compaction still work.
		out := 0
		for _, b := range resp.Message.Content {
			out += len(b.Text) + len(b.Input) + len(b.Name)
		}
		resp.Usage = llm.Usage{InputTokens: (len(body) + 3) / 4, OutputTokens: (out + 3) / 4}
	}
	return resp, nil
}

func (c *Client) attempt(parent context.Context, body []byte, p Profile, onEvent func(llm.Event)) (*llm.Response, error) {
	ctx, idle, stop := retry.WithIdle(parent, c.cfg.IdleTimeout)
	defer stop()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("User-Agent", "hew")
	if c.cfg.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	res, err := c.cfg.HTTPClient.Do(hr)
	if err != nil {
		return nil, retry.Check(parent, ctx, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, httpError(res)
	}
	idle.Kick()
	var r *llm.Response
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "application/json" {
		r, err = decodeJSON(res.Body, p, onEvent)
	} else {
		r, err = decodeStream(res.Body, p, onEvent, func() error { idle.Kick(); return ctx.Err() })
	}
	if err != nil {
		if parent.Err() != nil {
			return nil, parent.Err()
		}
		return nil, retry.Check(parent, ctx, err)
	}
	return r, nil
}

// httpError reads an error response: {"error": {...}} or plain text.
func httpError(res *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	typ, msg := "", ""
	if json.Unmarshal(data, &e) == nil && (len(e.Error) > 0 || e.Message != "") {
		var we wireError
		if json.Unmarshal(e.Error, &we) == nil && we.Message != "" {
			typ, msg = we.Type, we.Message
			if typ == "" {
				typ = strings.Trim(string(we.Code), `"`)
			}
		} else if json.Unmarshal(e.Error, &msg) != nil || msg == "" {
			msg = e.Message
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(string(data))
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
	}
	if msg == "" {
		msg = http.StatusText(res.StatusCode)
	}
	return retry.HTTPError(res.StatusCode, res.Header, typ, msg)
}
