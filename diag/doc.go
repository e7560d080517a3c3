// Package diag is ocfetch's structured diagnostics, on log/slog.
//
// Every area logs under a domain ([DomainFetch], [DomainEgress], …) at one of
// four levels, the levels of seed 000:
//
//	L1  errors and major events (startup, a rule saved, a file refused)
//	L2  admissions and refusals, one canonical line per decision
//	L3  per-decision detail (the ports a file admitted, the rule that matched)
//	L4  deep tracing
//
// The verbosity N (0–4) comes from OCFETCH_DEBUG ([LevelFromEnv]) or a count
// of -v flags ([Verbosity] takes the larger); N shows L1…LN, and 0 turns
// diagnostics off. Errors and warnings logged with slog.LevelError or
// slog.LevelWarn are shown at every verbosity from 1 up.
//
//	n, err := diag.Verbosity(vCount) // OCFETCH_DEBUG=3 or -vvv
//	log := diag.New(os.Stderr, n)
//	flog := diag.For(log, diag.DomainFetch)
//	flog.Log(ctx, diag.L2, "local admitted", "port", 8080)
//
// Keeping secrets out of diagnostics is the caller's duty: a message and its
// attributes never carry the path, query, headers or body of a request. As
// defence in depth, every logger made here drops attributes whose key names
// one of those ([Redacting]).
package diag
