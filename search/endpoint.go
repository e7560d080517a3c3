package search

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/safetext"
)

// parseEndpoint reads a backend URL from the configuration or a flag: an
// absolute http or https URL with a host, no credentials, no query and no
// fragment. Whether its origin may be reached (https for a public host,
// local mode for loopback, a rule or an approval) is not decided here but
// by policy.Decide on every call, as for a fetch.
func parseEndpoint(raw string) (*url.URL, error) {
	if raw == "" || len(raw) > 2048 {
		return nil, fmt.Errorf("%w: the backend URL must be 1 to 2048 bytes", ErrConfig)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return nil, fmt.Errorf("%w: the backend URL is not a valid URL", ErrConfig)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, fmt.Errorf("%w: the backend URL must be https:// (http:// only for a local instance), not %s", ErrConfig, safetext.Short(u.Scheme))
	case u.User != nil:
		return nil, fmt.Errorf("%w: the backend URL must not carry credentials (user:password@); use a key file", ErrConfig)
	case u.Host == "":
		return nil, fmt.Errorf("%w: the backend URL has no host", ErrConfig)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fmt.Errorf("%w: the backend URL must have no query or fragment", ErrConfig)
	}
	o, err := capability.OriginOf(u)
	if err != nil {
		return nil, fmt.Errorf("%w: the backend URL: %v", ErrConfig, err)
	}
	// Rebuilt from its parts with the normalised host, as fetch does: the
	// host on the wire is the host decided on.
	return &url.URL{Scheme: u.Scheme, Host: o.Host(), Path: u.Path, RawPath: u.RawPath}, nil
}

// withPath returns u with suffix appended to its path unless the path
// already ends with it.
func withPath(u *url.URL, suffix string) *url.URL {
	c := *u
	if !strings.HasSuffix(c.Path, suffix) {
		c.Path = strings.TrimSuffix(c.Path, "/") + suffix
		c.RawPath = ""
	}
	return &c
}
