#!/usr/bin/env bash
# Compares `ocfetch proxy` (the release binary, every policy layer present,
# the audit line written) with Stripe's smokescreen v0.1.0 on loopback:
# small-request rate and CPU seconds per 10k requests through CONNECT,
# plain HTTP and SOCKS5 (ocfetch only), 100 MB throughput, peak RSS.
# Both are built as a release is (CGO_ENABLED=0, -trimpath, -ldflags
# "-s -w", as .goreleaser.yaml builds ocfetch), so the peak RSS compares
# like with like; smokescreen is installed into a temporary GOBIN (never
# into this module). Nothing is left behind.
#
# Usage: bench/proxy/run.sh [driver flags]   (see main.go; e.g. -n 20000 -c 64)
# Defaults: 10k requests per proxy and mode in 5 interleaved rounds, 32
# clients; about 1–2 minutes on the 2-core machine.
# bench/proxy/run.sh -export [-rate 1000 -n 10000] measures the audit
# export instead: `ocfetch proxy` with and without an OTLP collector, CPU
# per request side by side (see export.go).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
flags=(-trimpath -ldflags "-s -w -X main.version=bench -X main.commit=$(git -C "$repo" rev-parse HEAD)")
export CGO_ENABLED=0

echo "== installing smokescreen v0.1.0 (static) into $tmp"
if ! (cd "$tmp" && GOFLAGS=-mod=mod GOBIN="$tmp" go install -trimpath -ldflags "-s -w" github.com/stripe/smokescreen@v0.1.0); then
	echo "smokescreen v0.1.0 did not build; see the go install output above" >&2
	exit 1
fi
echo "== building ocfetch (release flags) and the driver"
(cd "$repo" && go build "${flags[@]}" -o "$tmp/ocfetch" ./cmd/ocfetch && go build -o "$tmp/proxybench" ./bench/proxy)
echo "commit $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . || echo ' (+ uncommitted changes)'), $(date -u '+%F %T UTC'), load:$(uptime | sed 's/.*load average://')"
# The user configuration directory (trust store, user rules, the proxy's
# credentials) is the temporary directory's, never the user's own (after
# the builds: go keeps its caches under HOME).
mkdir -p "$tmp/home" "$tmp/config"
HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" \
	"$repo/bench/policyns.sh" "$tmp/ns" "$tmp/proxybench" -ocfetch "$tmp/ocfetch" -smokescreen "$tmp/smokescreen" "$@"
