package diag

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
)

// The four diagnostic levels as slog levels. L1 is slog.LevelInfo, so that
// slog.LevelWarn and slog.LevelError rank above it; each further level is
// one slog step (4) more verbose. Handlers made here print them as "L1"…"L4".
const (
	L1 = slog.LevelInfo
	L2 = slog.LevelDebug
	L3 = slog.LevelDebug - 4
	L4 = slog.LevelDebug - 8
)

// MaxVerbosity is the highest verbosity: L1 through L4 shown.
const MaxVerbosity = 4

// EnvVar is the environment variable that sets the verbosity (0–4).
const EnvVar = "OCFETCH_DEBUG"

// The diagnostic domains, one per area, logged as the "domain" attribute.
const (
	DomainFetch  = "TOOLS.FETCH"
	DomainEgress = "EGRESS"
	DomainRules  = "RULES"
	DomainBroker = "BROKER"
	DomainProxy  = "PROXY"
	DomainMCP    = "MCP"
	DomainCLI    = "CLI"
	DomainLocal  = "LOCAL"
	DomainAudit  = "AUDIT"
	// DomainSearch is the search tool's (package search).
	DomainSearch = "TOOLS.SEARCH"
)

// DomainKey is the attribute key [For] adds.
const DomainKey = "domain"

// Level returns the slog level at and above which records are shown at
// verbosity n: L1 for 1, … L4 for 4 (and above). It is meaningless for
// n ≤ 0, where nothing is shown.
func Level(n int) slog.Level {
	switch {
	case n <= 1:
		return L1
	case n == 2:
		return L2
	case n == 3:
		return L3
	default:
		return L4
	}
}

// ParseLevel parses a verbosity "0" to "4". The empty string is 0.
func ParseLevel(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	if len(s) == 1 && s[0] >= '0' && s[0] <= '0'+MaxVerbosity {
		return int(s[0] - '0'), nil
	}
	return 0, fmt.Errorf("verbosity %s is not 0–%d", strconv.Quote(clip(s)), MaxVerbosity)
}

// LevelFromEnv returns the verbosity set by OCFETCH_DEBUG: 0 when unset or
// empty, else 0–4. Any other value is an error naming the variable, so a
// typo is reported rather than silently ignored.
func LevelFromEnv() (int, error) {
	n, err := ParseLevel(os.Getenv(EnvVar))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", EnvVar, err)
	}
	return n, nil
}

// Verbosity returns the larger of OCFETCH_DEBUG and vCount (the number of
// -v flags), capped at [MaxVerbosity]. A bad OCFETCH_DEBUG is an error.
func Verbosity(vCount int) (int, error) {
	n, err := LevelFromEnv()
	if err != nil {
		return 0, err
	}
	return min(max(n, vCount, 0), MaxVerbosity), nil
}

// New returns a logger writing text records with a timestamp to w (usually
// os.Stderr) at verbosity n. For n ≤ 0 it is [Discard]. Attributes that
// name a URL, path, query, header or body are dropped ([Redacting]).
func New(w io.Writer, n int) *slog.Logger {
	if n <= 0 {
		return Discard()
	}
	return slog.New(Redacting(slog.NewTextHandler(w, HandlerOptions(n))))
}

// NewPlain is [New] without the time attribute, for golden output, examples
// and tests.
func NewPlain(w io.Writer, n int) *slog.Logger {
	if n <= 0 {
		return Discard()
	}
	opts := HandlerOptions(n)
	opts.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return levelNames(groups, a)
	}
	return slog.New(Redacting(slog.NewTextHandler(w, opts)))
}

// HandlerOptions returns the options [New] uses at verbosity n (n ≥ 1), for
// callers that build another handler (JSON, say): the level threshold and
// "L1"…"L4" level names. Wrap the handler in [Redacting].
//
//	h := diag.Redacting(slog.NewJSONHandler(os.Stderr, diag.HandlerOptions(n)))
func HandlerOptions(n int) *slog.HandlerOptions {
	return &slog.HandlerOptions{Level: Level(n), ReplaceAttr: levelNames}
}

// Discard returns a logger that drops every record; the default of every
// Logger field in ocfetch.
func Discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// For returns l with the attribute domain=domain. A nil l gives [Discard].
func For(l *slog.Logger, domain string) *slog.Logger {
	if l == nil {
		return Discard()
	}
	return l.With(DomainKey, domain)
}

// Enabled reports whether l shows records at level; a cheap guard before
// computing expensive L3/L4 attributes.
func Enabled(ctx context.Context, l *slog.Logger, level slog.Level) bool {
	return l != nil && l.Enabled(ctx, level)
}

// levelNames is a ReplaceAttr that prints L1…L4 by name.
func levelNames(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.LevelKey {
		if lv, ok := a.Value.Any().(slog.Level); ok {
			if name, ok := levelName(lv); ok {
				a.Value = slog.StringValue(name)
			}
		}
	}
	return a
}

func levelName(l slog.Level) (string, bool) {
	switch l {
	case L1:
		return "L1", true
	case L2:
		return "L2", true
	case L3:
		return "L3", true
	case L4:
		return "L4", true
	}
	return "", false
}

func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}

// RuleSaved writes the L1 line of a rule saved (the "a rule saved" of
// the levels): domain RULES, the rule's target as host:port, its
// decision (allow, deny) and the rules file; nothing else. Every writer
// of a rule logs it so: `ocfetch rules`, and an approval answered
// "always".
func RuleSaved(ctx context.Context, l *slog.Logger, decision, host string, port uint16, file string) {
	For(l, DomainRules).Log(ctx, L1, "rule saved", "target", net.JoinHostPort(host, strconv.Itoa(int(port))), "decision", decision, "file", file)
}

// RuleRemoved is [RuleSaved] for the rules of host:port removed from file.
func RuleRemoved(ctx context.Context, l *slog.Logger, host string, port uint16, file string) {
	For(l, DomainRules).Log(ctx, L1, "rule removed", "target", net.JoinHostPort(host, strconv.Itoa(int(port))), "file", file)
}
