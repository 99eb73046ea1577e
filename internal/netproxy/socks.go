package netproxy

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
)

// SOCKS5 (RFC 1928) with username/password authentication (RFC 1929);
// only CONNECT. Names travel to the proxy unresolved (socks5h), so the
// sandbox needs no DNS.
const (
	socksVersion   = 5
	socksAuthUser  = 2
	socksNoMethods = 0xff

	socksCmdConnect = 1

	socksAtypIPv4   = 1
	socksAtypDomain = 3
	socksAtypIPv6   = 4

	socksOK             = 0
	socksNotAllowed     = 2
	socksHostUnreach    = 4
	socksCmdUnsupported = 7
	socksAtypUnsupp     = 8
)

func (p *Proxy) serveSOCKS(c net.Conn, br *bufio.Reader) {
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	if !containsByte(methods, socksAuthUser) {
		c.Write([]byte{socksVersion, socksNoMethods})
		return
	}
	if _, err := c.Write([]byte{socksVersion, socksAuthUser}); err != nil {
		return
	}
	user, pass, ok := readUserPass(br)
	s := p.scopeFor(user, pass)
	if !ok || s == nil {
		c.Write([]byte{1, 1})
		return
	}
	if _, err := c.Write([]byte{1, 0}); err != nil {
		return
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil || req[0] != socksVersion {
		return
	}
	host, ok := readSOCKSAddr(br, req[3])
	var pb [2]byte
	if !ok {
		socksReply(c, socksAtypUnsupp)
		return
	}
	if _, err := io.ReadFull(br, pb[:]); err != nil {
		return
	}
	if req[1] != socksCmdConnect {
		socksReply(c, socksCmdUnsupported)
		return
	}
	defer s.track()()
	rec := Receipt{Via: "socks5"}
	up, err := p.open(s, host, int(binary.BigEndian.Uint16(pb[:])), &rec)
	if err != nil {
		code := byte(socksNotAllowed)
		if rec.By == "error" {
			code = socksHostUnreach
		}
		p.record(s, rec)
		socksReply(c, code)
		return
	}
	if err := socksReply(c, socksOK); err != nil {
		up.Close()
		p.record(s, rec)
		return
	}
	pipe(c, br, up, &rec)
	up.Close()
	p.record(s, rec)
}

func containsByte(b []byte, x byte) bool {
	for _, y := range b {
		if y == x {
			return true
		}
	}
	return false
}

func readUserPass(br *bufio.Reader) (user, pass string, ok bool) {
	ver, err := br.ReadByte()
	if err != nil || ver != 1 {
		return "", "", false
	}
	read := func() (string, bool) {
		n, err := br.ReadByte()
		if err != nil {
			return "", false
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", false
		}
		return string(b), true
	}
	if user, ok = read(); !ok {
		return "", "", false
	}
	pass, ok = read()
	return user, pass, ok
}

// readSOCKSAddr reads the address of a request as a host string.
func readSOCKSAddr(br *bufio.Reader, atyp byte) (string, bool) {
	switch atyp {
	case socksAtypIPv4:
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return "", false
		}
		return netip.AddrFrom4(b).String(), true
	case socksAtypIPv6:
		var b [16]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return "", false
		}
		return netip.AddrFrom16(b).String(), true
	case socksAtypDomain:
		n, err := br.ReadByte()
		if err != nil {
			return "", false
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", false
		}
		return string(b), true
	}
	return "", false
}

// socksReply answers a request; the bound address is not disclosed.
func socksReply(c net.Conn, code byte) error {
	_, err := c.Write([]byte{socksVersion, code, 0, socksAtypIPv4, 0, 0, 0, 0, 0, 0})
	return err
}
