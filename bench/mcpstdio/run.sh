#!/usr/bin/env bash
# Per-call wall and server CPU of `ocfetch mcp` over stdio (the release
# binary: CGO_ENABLED=0, -trimpath, -ldflags "-s -w"; every policy layer
# present, the audit line written) against the Node peer
# @tokenizin/mcp-npx-fetch 1.0.0, both driven by the MCP TypeScript SDK
# client 1.32.2 (the version cmd/ocfetch/testdata/mcpclient pins), raw
# 10 KB loopback page, interleaved rounds. See bench.mjs.
# Usage: bench/mcpstdio/run.sh [--calls N] [--rounds R] [--limit SECONDS]
# Defaults: 6 rounds of 200 calls per server, at most 120 s of calls.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# The pinned packages, from package-lock.json, into bench/mcpstdio/node_modules.
[ -d "$here/node_modules/@tokenizin/mcp-npx-fetch" ] || (cd "$here" && npm ci --no-audit --no-fund)
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=bench -X main.commit=$(git rev-parse HEAD)" -o "$tmp/ocfetch" ./cmd/ocfetch)
echo "commit $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . || echo ' (+ uncommitted changes)'), $(date -u '+%F %T UTC'), load:$(uptime | sed 's/.*load average://')"
# The trust store and user rules live in the temporary directory.
mkdir -p "$tmp/home" "$tmp/config"
HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" \
	"$repo/bench/policyns.sh" "$tmp/ns" node "$here/bench.mjs" --ocfetch "$tmp/ocfetch" "$@"
