package netproxy

import (
	"context"
	"io"
	"net"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"
)

// FuzzServe feeds arbitrary bytes to the proxy's connection handler (both
// protocols share it). It must never panic or hang, and without the
// scope's credential it must never resolve or dial anything, whatever the
// bytes claim.
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		"CONNECT a.test:443 HTTP/1.1\r\nHost: a.test\r\n\r\n",
		"CONNECT a.test:443 HTTP/1.1\r\nProxy-Authorization: Basic aGV3Og==\r\n\r\n",
		"GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
		"\x05\x01\x02\x01\x03hew\x00\x05\x01\x00\x03\x06a.test\x01\xbb",
		"\x05\x01\x00",
		"\x05\xff",
		"",
	} {
		f.Add([]byte(seed))
	}
	var resolved atomic.Int32
	p, err := Start(Config{Rules: Rules{Allowed: []string{"*.test"}, Defaults: []string{}}, Resolve: func(context.Context, string) ([]netip.Addr, error) {
		resolved.Add(1)
		return nil, io.EOF
	}})
	if err != nil {
		f.Fatal(err)
	}
	defer p.Close()
	p.Begin("fuzz") // a live scope whose token the input cannot know
	f.Fuzz(func(t *testing.T, data []byte) {
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.serve(server)
			server.Close()
		}()
		client.SetDeadline(time.Now().Add(2 * time.Second))
		go io.Copy(io.Discard, client)
		client.Write(data)
		client.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("serve did not return after the client closed")
		}
		if n := resolved.Load(); n != 0 {
			t.Fatalf("resolved a name %d times without credentials, input %q", n, data)
		}
	})
}
