package socks5

import (
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"strconv"

	"github.com/ocfetch/ocfetch/refusal"
)

// Request is a parsed request: the command and the destination as the
// client sent it.
type Request struct {
	Cmd      byte
	AddrType byte
	Addr     netip.Addr // for AtypIPv4 and AtypIPv6
	Name     string     // for AtypDomain, as sent
	Port     uint16
}

// ReadRequest reads VER CMD RSV ATYP DST.ADDR DST.PORT. A request whose
// address cannot be read (an unknown address type, an empty domain)
// returns an [*Error] with the reply to send; one that is not SOCKS5 at
// all (wrong version, short) returns an error wrapping [ErrMalformed] or
// the read error. The command and the destination are not judged here:
// which commands it serves, and whether a port 0 or a name is a valid
// destination, is the server's to say.
func ReadRequest(r io.Reader) (Request, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Request{}, err
	}
	if h[0] != Version {
		return Request{}, fmt.Errorf("%w: version %d in the request", ErrMalformed, h[0])
	}
	if h[2] != 0 {
		return Request{}, fmt.Errorf("%w: reserved byte %d", ErrMalformed, h[2])
	}
	req := Request{Cmd: h[1], AddrType: h[3]}
	switch req.AddrType {
	case AtypIPv4:
		var a [4]byte
		if _, err := io.ReadFull(r, a[:]); err != nil {
			return Request{}, unexpected(err)
		}
		req.Addr = netip.AddrFrom4(a)
	case AtypIPv6:
		var a [16]byte
		if _, err := io.ReadFull(r, a[:]); err != nil {
			return Request{}, unexpected(err)
		}
		req.Addr = netip.AddrFrom16(a)
	case AtypDomain:
		var l [1]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return Request{}, unexpected(err)
		}
		if l[0] == 0 {
			return Request{}, &Error{Rep: GeneralFailure,
				Err: refusal.New(refusal.InvalidArguments, "SOCKS5 request with an empty domain name").
					WithHint("send a host name or an IP address")}
		}
		name := make([]byte, l[0])
		if _, err := io.ReadFull(r, name); err != nil {
			return Request{}, unexpected(err)
		}
		req.Name = string(name)
	default:
		return Request{}, &Error{Rep: AddrNotSupported,
			Err: refusal.Newf(refusal.InvalidArguments, "SOCKS5 address type %d is not supported", req.AddrType).
				WithHint("send an IPv4 address, an IPv6 address or a domain name")}
	}
	var p [2]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		return Request{}, unexpected(err)
	}
	req.Port = binary.BigEndian.Uint16(p[:])
	return req, nil
}

// CommandName names a command for a refusal: "BIND", "UDP ASSOCIATE",
// or its number for any other (CONNECT included).
func CommandName(c byte) string {
	switch c {
	case CmdBind:
		return "BIND"
	case CmdUDPAssociate:
		return "UDP ASSOCIATE"
	}
	return strconv.Itoa(int(c))
}
