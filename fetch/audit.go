package fetch

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/ocfetch/ocfetch/capability"
	"github.com/ocfetch/ocfetch/fetchargs"
)

// Generic summaries for arguments that say nothing safe to log.
const (
	summaryBadArgs = "FETCH <unparseable arguments>"
	summaryBadURL  = "<unparseable url>"
)

// AuditSummary returns "<METHOD> <host>" ONLY: the method when it is GET
// or POST (else "FETCH"), and the URL's host normalised to ASCII. Never the
// path, query, userinfo, port, headers or body. It decodes leniently (it
// must summarise the calls PrepareCall refuses too), and arguments or a URL
// it cannot read give a generic, secret-free summary.
func (f *Fetch) AuditSummary(argsJSON string) string {
	if len(argsJSON) > fetchargs.MaxArgsBytes {
		return summaryBadArgs
	}
	var a struct {
		URL    string `json:"url"`
		Method string `json:"method"`
	}
	if err := json.Unmarshal([]byte(argsJSON), &a); err != nil {
		return summaryBadArgs
	}
	method := "FETCH"
	switch {
	case a.Method == "" || strings.EqualFold(a.Method, http.MethodGet):
		method = http.MethodGet
	case strings.EqualFold(a.Method, http.MethodPost):
		method = http.MethodPost
	}
	return method + " " + summaryHost(a.URL)
}

func summaryHost(raw string) string {
	if raw == "" || len(raw) > fetchargs.MaxURLBytes {
		return summaryBadURL
	}
	u, err := url.Parse(raw)
	if err == nil && u.Host == "" && isPlainScheme(u.Scheme) {
		// "file:///etc/passwd", "mailto:x": the scheme is what was refused,
		// and it is safe to say; what follows it is not.
		return "<" + u.Scheme + " url without host>"
	}
	if err != nil || u.Opaque != "" || u.Host == "" {
		return summaryBadURL
	}
	h, err := capability.NormalizeHost(u.Hostname())
	if err != nil {
		return summaryBadURL
	}
	return h
}

// isPlainScheme reports whether s is a short scheme of lowercase letters
// and digits, safe to name in a summary.
func isPlainScheme(s string) bool {
	if s == "" || len(s) > 16 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < 'a' || s[i] > 'z') && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}
