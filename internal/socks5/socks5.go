package socks5

import (
	"errors"
	"io"

	"github.com/ocfetch/ocfetch/refusal"
)

// Version is SOCKS5's version byte (VER), the first byte of the client's
// greeting and request and of the server's method selection and reply;
// the username/password sub-negotiation has its own, [AuthVersion].
const Version = 0x05

// Authentication methods.
const (
	MethodNone         = 0x00
	MethodUserPass     = 0x02
	MethodNoAcceptable = 0xFF
)

// Commands.
const (
	CmdConnect      = 0x01
	CmdBind         = 0x02
	CmdUDPAssociate = 0x03
)

// Address types.
const (
	AtypIPv4   = 0x01
	AtypDomain = 0x03
	AtypIPv6   = 0x04
)

// Reply codes.
const (
	Succeeded           = 0x00
	GeneralFailure      = 0x01
	NotAllowed          = 0x02
	NetworkUnreachable  = 0x03
	HostUnreachable     = 0x04
	ConnectionRefused   = 0x05
	TTLExpired          = 0x06
	CommandNotSupported = 0x07
	AddrNotSupported    = 0x08
)

// The username/password sub-negotiation's version and statuses.
const (
	AuthVersion = 0x01
	AuthOK      = 0x00
	AuthFailed  = 0x01
)

// ErrMalformed wraps every message that is not RFC 1928/1929.
var ErrMalformed = errors.New("malformed SOCKS5 message")

// Error is a request the server answers with a reply code rather than
// serving: an unsupported command or address type, or a malformed
// address. Rep is the reply code to send; Err names the refusal.
type Error struct {
	Rep byte
	Err *refusal.Error
}

func (e *Error) Error() string { return e.Err.Error() }

// unexpected turns an EOF in the middle of a message into
// io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
