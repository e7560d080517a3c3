package search

import (
	"net/url"
	"strings"
)

// webURL reports whether s is an absolute http or https URL with a host
// and no userinfo, which url.Parse parses, short enough to show. url.Parse
// is the rule ([parsedWebURL]); [plainWebURL] only answers, without its
// allocations, the common URLs it is sure url.Parse accepts.
func webURL(s string) bool {
	if s == "" || len(s) > maxURLBytes || strings.IndexByte(s, ' ') >= 0 || strings.IndexByte(s, '\t') >= 0 {
		return false
	}
	return plainWebURL(s) || parsedWebURL(s)
}

// parsedWebURL is webURL's verdict by url.Parse: it parses, its scheme is
// https or http (in any case), it has a host and no userinfo.
func parsedWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil
}

// plainWebURL reports whether s is, byte for byte, "http://" or
// "https://", a host name of letters, digits, '.', '-', '_' and '~'
// (bytes url.Parse never refuses in a host), an optional ':' and digits
// (its port rule), then nothing or a '/', '?' or '#' and printable bytes
// in which every '%' starts a %XX escape: a URL url.Parse parses with that
// scheme and host and no userinfo. false means "not sure": the caller
// asks url.Parse. TestPlainWebURLAgreesWithURLParse and FuzzWebURL hold
// it to that.
func plainWebURL(s string) bool {
	var i int
	switch {
	case strings.HasPrefix(s, "https://"):
		i = len("https://")
	case strings.HasPrefix(s, "http://"):
		i = len("http://")
	default:
		return false
	}
	host := i
	for i < len(s) && hostByte(s[i]) {
		i++
	}
	if i == host {
		return false
	}
	if i < len(s) && s[i] == ':' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
	}
	if i == len(s) {
		return true
	}
	if c := s[i]; c != '/' && c != '?' && c != '#' {
		return false
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c == 0x7f:
			return false
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		}
	}
	return true
}

// hostByte reports whether c is an unreserved ASCII byte (RFC 3986), which
// url.Parse takes in a host as is.
func hostByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
