package socks5

import (
	"fmt"
	"io"
)

// ReadGreeting reads the client's greeting, VER NMETHODS METHODS, and
// returns the methods offered. NMETHODS 0 is malformed.
func ReadGreeting(r io.Reader) ([]byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	if h[0] != Version {
		return nil, fmt.Errorf("%w: version %d in the greeting", ErrMalformed, h[0])
	}
	if h[1] == 0 {
		return nil, fmt.Errorf("%w: the greeting offers no method", ErrMalformed)
	}
	methods := make([]byte, h[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return nil, unexpected(err)
	}
	return methods, nil
}

// ChooseMethod picks the method for a greeting: username/password
// when the server requires credentials (and none acceptable when the
// client does not offer it), else no authentication, else
// username/password with any credentials accepted.
func ChooseMethod(offered []byte, authRequired bool) byte {
	has := func(m byte) bool {
		for _, o := range offered {
			if o == m {
				return true
			}
		}
		return false
	}
	switch {
	case authRequired && has(MethodUserPass):
		return MethodUserPass
	case authRequired:
		return MethodNoAcceptable
	case has(MethodNone):
		return MethodNone
	case has(MethodUserPass):
		return MethodUserPass
	}
	return MethodNoAcceptable
}

// ReadUserPass reads the RFC 1929 request VER ULEN UNAME PLEN PASSWD.
// Empty names and passwords are malformed (ULEN and PLEN are 1–255).
func ReadUserPass(r io.Reader) (user, password string, err error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", "", err
	}
	if h[0] != AuthVersion {
		return "", "", fmt.Errorf("%w: username/password version %d", ErrMalformed, h[0])
	}
	u, err := readString(r, h[1])
	if err != nil {
		return "", "", err
	}
	var pl [1]byte
	if _, err := io.ReadFull(r, pl[:]); err != nil {
		return "", "", unexpected(err)
	}
	p, err := readString(r, pl[0])
	if err != nil {
		return "", "", err
	}
	return u, p, nil
}

func readString(r io.Reader, n byte) (string, error) {
	if n == 0 {
		return "", fmt.Errorf("%w: empty field", ErrMalformed)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", unexpected(err)
	}
	return string(b), nil
}
