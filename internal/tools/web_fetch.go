package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
)

// web_fetch limits; variables so tests can lower them.
var (
	WebFetchMaxBytes     int64 = 5 << 20
	WebFetchTimeout            = 30 * time.Second
	WebFetchMaxRedirects       = 5
)

// WebFetch is the web_fetch tool.
type WebFetch struct{ Spec }

var webFetchSpec = builtin("web_fetch", `{
 "type": "object",
 "properties": {
  "url": {"type": "string", "description": "The http or https URL to fetch"}
 },
 "required": ["url"],
 "additionalProperties": false
}`)

type webFetchInput struct {
	URL string `json:"url"`
}

// ReadOnly: it changes nothing locally, so it may run alongside other
// reads; whether it may run at all is the permission engine's call.
func (WebFetch) ReadOnly(json.RawMessage) bool { return true }

// Explores implements Explorer: fetching a page changes nothing here.
func (WebFetch) Explores() bool { return true }

// Check accepts only absolute http(s) URLs with a host.
func (WebFetch) Check(_ *Env, input json.RawMessage) error {
	in, err := decode[webFetchInput](input)
	if err != nil {
		return err
	}
	_, err = parseFetchURL(in.URL)
	return err
}

func parseFetchURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("web_fetch: %q is not a valid URL: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("web_fetch: only http and https URLs can be fetched, got %q", raw)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("web_fetch: URL %q has no host", raw)
	}
	return u, nil
}

// Run fetches the URL within the size, time and redirect limits.
func (WebFetch) Run(ctx context.Context, _ *Env, input json.RawMessage) (Result, error) {
	in, err := decode[webFetchInput](input)
	if err != nil {
		return Result{}, err
	}
	u, err := parseFetchURL(in.URL)
	if err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, WebFetchTimeout)
	defer cancel()
	var offHost *url.URL
	client := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > WebFetchMaxRedirects {
			return fmt.Errorf("stopped after %d redirects", WebFetchMaxRedirects)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect to unsupported scheme %q", req.URL.Scheme)
		}
		// Another host needs its own permission: report it, do not follow.
		if !sameSite(req.URL.Host, u.Host) {
			offHost = req.URL
			return http.ErrUseLastResponse
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Result{}, fmt.Errorf("web_fetch: %w", err)
	}
	req.Header.Set("User-Agent", "hew (terminal coding agent)")
	req.Header.Set("Accept", "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Result{}, fmt.Errorf("web_fetch: %s timed out after %s", u, WebFetchTimeout)
		}
		return Result{}, fmt.Errorf("web_fetch: %w", err)
	}
	defer resp.Body.Close()
	if offHost != nil {
		return Result{Content: fmt.Sprintf("%s redirects to a different host: %s\nThe redirect was not followed. To fetch it, call web_fetch with that URL (it needs its own permission).", u, offHost)}, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, WebFetchMaxBytes+1))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Result{}, fmt.Errorf("web_fetch: reading %s timed out after %s", u, WebFetchTimeout)
		}
		return Result{}, fmt.Errorf("web_fetch: reading body: %w", err)
	}
	cut := int64(len(body)) > WebFetchMaxBytes
	if cut {
		body = body[:WebFetchMaxBytes]
	}
	final := resp.Request.URL
	ctype := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ctype)
	var text string
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml" || (mt == "" && looksHTML(body)):
		conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
		md, err := conv.ConvertString(string(body), converter.WithDomain(final.Scheme+"://"+final.Host), converter.WithContext(ctx))
		if err != nil {
			return Result{}, fmt.Errorf("web_fetch: converting HTML to Markdown: %w", err)
		}
		text = md
	case isTextType(mt) || (mt == "" && utf8.Valid(body)):
		text = string(body)
	default:
		return Result{}, fmt.Errorf("web_fetch: %s returned %s (%d bytes), which is not text; only text and HTML can be fetched", final, ctype, len(body))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\nStatus: %s\nContent-Type: %s\n", final, resp.Status, ctype)
	if final.String() != u.String() {
		fmt.Fprintf(&b, "Redirected from: %s\n", u)
	}
	if cut {
		fmt.Fprintf(&b, "[response cut at %s]\n", humanBytes(WebFetchMaxBytes))
	}
	b.WriteString("\n")
	b.WriteString(strings.TrimSpace(text))
	return Result{Content: b.String(), IsError: resp.StatusCode >= 400}, nil
}

// sameSite treats a host and its www. form as the same site.
func sameSite(a, b string) bool {
	norm := func(h string) string { return strings.TrimPrefix(strings.ToLower(h), "www.") }
	return norm(a) == norm(b)
}

func isTextType(mt string) bool {
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/x-yaml",
		"application/yaml", "application/toml", "application/ld+json", "application/rss+xml", "application/atom+xml":
		return true
	}
	return strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}

func looksHTML(b []byte) bool {
	head := strings.ToLower(string(b[:min(len(b), 512)]))
	return strings.Contains(head, "<html") || strings.Contains(head, "<!doctype html")
}

// Summary implements Summarizer: the URL.
func (WebFetch) Summary(input json.RawMessage) string { return Field(input, "url") }

// Subject implements Subjecter: the URL.
func (WebFetch) Subject(input json.RawMessage) string { return Field(input, "url") }
