package fetch

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/ocfetch/ocfetch/capability"
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
	if len(argsJSON) > MaxArgsBytes {
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
	if raw == "" || len(raw) > MaxURLBytes {
		return summaryBadURL
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return summaryBadURL
	}
	h, err := capability.NormalizeHost(u.Hostname())
	if err != nil {
		return summaryBadURL
	}
	return h
}
