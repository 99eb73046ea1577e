package netproxy

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// hopHeaders are connection-level headers a proxy must not forward.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// serveHTTP handles CONNECT tunnels and plain http:// requests, one
// request at a time on the client connection.
func (p *Proxy) serveHTTP(c net.Conn, br *bufio.Reader) {
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		s := p.httpScope(req.Header.Get("Proxy-Authorization"))
		if s == nil {
			writeStatus(c, http.StatusProxyAuthRequired, "hew sandbox proxy: missing or wrong credentials (only hew's own sandboxed commands may use it)",
				"Proxy-Authenticate: Basic realm=\"hew sandbox\"\r\n")
			return
		}
		if req.Method == http.MethodConnect {
			defer s.track()()
			host, port := splitHostPort(req.Host, 443)
			rec := Receipt{Via: "connect"}
			up, err := p.open(s, host, port, &rec)
			if err != nil {
				p.refuse(c, s, rec)
				return
			}
			if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
				up.Close()
				rec.Reason = "client went away"
				p.record(s, rec)
				return
			}
			pipe(c, br, up, &rec)
			up.Close()
			p.record(s, rec)
			return
		}
		if !p.forward(c, s, req) {
			return
		}
	}
}

// httpScope checks a Basic Proxy-Authorization header.
func (p *Proxy) httpScope(h string) *Scope {
	scheme, b64, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return nil
	}
	user, pass, _ := strings.Cut(string(raw), ":")
	return p.scopeFor(user, pass)
}

// refuse answers a refused CONNECT or request with 403 and records it.
func (p *Proxy) refuse(c net.Conn, s *Scope, rec Receipt) {
	status := http.StatusForbidden
	if rec.By == "error" {
		status = http.StatusBadGateway
	}
	p.record(s, rec)
	writeStatus(c, status, fmt.Sprintf("hew sandbox: connection to %s:%d refused: %s", rec.Host, rec.Port, rec.Reason),
		"X-Hew-Sandbox: "+rec.By+"\r\n")
}

// forward relays one plain-HTTP request; it reports whether the client
// connection may carry another.
func (p *Proxy) forward(c net.Conn, s *Scope, req *http.Request) bool {
	if req.URL == nil || req.URL.Scheme != "http" || req.URL.Host == "" {
		writeStatus(c, http.StatusBadRequest, "hew sandbox proxy: want an absolute http:// URL or CONNECT", "")
		return false
	}
	defer s.track()()
	host, port := splitHostPort(req.URL.Host, 80)
	rec := Receipt{Via: "http"}
	up, err := p.open(s, host, port, &rec)
	if err != nil {
		p.refuse(c, s, rec)
		return !req.Close
	}
	defer up.Close()
	start := time.Now()
	cu := &countConn{Conn: up}
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	req.RequestURI = ""
	req.Host = req.URL.Host // the vetted name, not a Host header naming another site on that address
	req.Close = true        // one request per upstream connection
	if err := req.Write(cu); err != nil {
		rec.Decision, rec.By, rec.Reason = "deny", "error", "sending the request: "+err.Error()
		p.refuse(c, s, rec)
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(cu), req)
	if err != nil {
		rec.Decision, rec.By, rec.Reason = "deny", "error", "reading the response: "+err.Error()
		p.refuse(c, s, rec)
		return false
	}
	for _, h := range hopHeaders {
		if h != "Transfer-Encoding" {
			resp.Header.Del(h)
		}
	}
	keep := !req.Close && !resp.Close
	resp.Close = !keep
	err = resp.Write(c)
	resp.Body.Close()
	rec.Up, rec.Down, rec.Duration = cu.up.Load(), cu.down.Load(), time.Since(start)
	p.record(s, rec)
	return err == nil && keep
}

// splitHostPort splits "host:port" (or a bare host) with a default port.
func splitHostPort(hp string, def int) (string, int) {
	host, ps, err := net.SplitHostPort(hp)
	if err != nil {
		return hp, def
	}
	port, err := strconv.Atoi(ps)
	if err != nil {
		return host, -1
	}
	return host, port
}

// writeStatus writes a short text response and asks the client to close.
func writeStatus(c net.Conn, code int, body, extra string) {
	body += "\n"
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\n%sContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, http.StatusText(code), extra, len(body), body)
}

// countConn counts bytes written (up) and read (down).
type countConn struct {
	net.Conn
	up, down atomic.Int64
}

// Read counts what comes down from the server.
func (c *countConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.down.Add(int64(n))
	return n, err
}

// Write counts what goes up to the server.
func (c *countConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.up.Add(int64(n))
	return n, err
}
