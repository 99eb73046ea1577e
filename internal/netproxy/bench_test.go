package netproxy

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
)

// Benchmarks on loopback only: the cost the proxy adds to one connection
// (CONNECT handshake, rule check, dial) and its throughput for a 100 MB
// download, each next to the same thing done directly.
//
//	go test -run '^$' -bench . -benchtime 3x ./internal/netproxy

// server serves each connection: it echoes one byte, or with size > 0
// writes size bytes and closes.
func server(b *testing.B, size int) string {
	b.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	chunk := make([]byte, 256<<10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if size == 0 {
					var one [1]byte
					if _, err := io.ReadFull(c, one[:]); err == nil {
						c.Write(one[:])
					}
					return
				}
				for left := size; left > 0; {
					n := min(left, len(chunk))
					if _, err := c.Write(chunk[:n]); err != nil {
						return
					}
					left -= n
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// dialVia opens a tunnel to target through the proxy with scope s.
func dialVia(b *testing.B, p *Proxy, s *Scope, target string) net.Conn {
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", p.Port()))
	if err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse(s.URL("http"))
	pass, _ := u.User.Password()
	auth := base64.StdEncoding.EncodeToString([]byte(User + ":" + pass))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: Basic %s\r\n\r\n", target, target, auth)
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil || !strings.Contains(line, " 200 ") {
		b.Fatalf("CONNECT: %q %v", line, err)
	}
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		if l == "\r\n" {
			break
		}
	}
	return bufConn{c, br}
}

// bufConn reads what the CONNECT reply's reader already buffered first.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c bufConn) Read(b []byte) (int, error) { return c.r.Read(b) }

func benchProxy(b *testing.B) (*Proxy, *Scope) {
	p, err := Start(Config{Rules: Rules{Allowed: []string{"127.0.0.1"}, Defaults: []string{}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	s := p.Begin("bench")
	return p, s
}

func BenchmarkConnection(b *testing.B) {
	target := server(b, 0)
	roundTrip := func(c net.Conn) {
		var one [1]byte
		c.Write([]byte{1})
		if _, err := io.ReadFull(c, one[:]); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			c, err := net.Dial("tcp4", target)
			if err != nil {
				b.Fatal(err)
			}
			roundTrip(c)
		}
	})
	b.Run("proxy", func(b *testing.B) {
		p, s := benchProxy(b)
		for b.Loop() {
			roundTrip(dialVia(b, p, s, target))
		}
	})
}

func BenchmarkDownload100MB(b *testing.B) {
	const size = 100 << 20
	target := server(b, size)
	drain := func(c net.Conn) {
		n, err := io.Copy(io.Discard, c)
		c.Close()
		if err != nil || n != size {
			b.Fatalf("got %d bytes, %v", n, err)
		}
	}
	b.Run("direct", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			c, err := net.Dial("tcp4", target)
			if err != nil {
				b.Fatal(err)
			}
			drain(c)
		}
	})
	b.Run("proxy", func(b *testing.B) {
		p, s := benchProxy(b)
		b.SetBytes(size)
		for b.Loop() {
			drain(dialVia(b, p, s, target))
		}
	})
}
