#!/usr/bin/env bash
# Whole-process cold start of `ocfetch get` against `curl -s` on a 10 KB
# loopback page (issue 17), interleaved rounds; then the package
# initialisation profile of one `ocfetch get --format raw` (GODEBUG=inittrace=1),
# the packages that cost most first. ocfetch is built as a release is
# (-trimpath -ldflags "-s -w"), once as the toolchain links it by default
# ("ocfetch": dynamically linked, for the cgo resolver) and once with
# CGO_ENABLED=0 ("ocfetch-static"), timed side by side; RELEASE=0 drops the
# release flags.
# Usage: bench/coldstart/run.sh [-n ROUNDS]
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
flags=(-trimpath -ldflags "-s -w")
[ "${RELEASE:-1}" = 0 ] && flags=()
(cd "$repo" && go build "${flags[@]}" -o "$tmp/ocfetch" ./cmd/ocfetch &&
	CGO_ENABLED=0 go build "${flags[@]}" -o "$tmp/ocfetch-static" ./cmd/ocfetch &&
	go build -o "$tmp/coldstart" ./bench/coldstart)
# The workspace the timing makes is trusted by its first `local allow`:
# that trust store (the user's configuration directory) lives in the
# temporary directory, never the user's own. (After the builds: go keeps
# its caches under HOME.)
mkdir -p "$tmp/config" "$tmp/home"
XDG_CONFIG_HOME="$tmp/config" HOME="$tmp/home" "$tmp/coldstart" -ocfetch "$tmp/ocfetch,$tmp/ocfetch-static" "$@"
echo
echo "package init of 'ocfetch version' (GODEBUG=inittrace=1), top 12 by clock:"
GODEBUG=inittrace=1 "$tmp/ocfetch" version 2>&1 >/dev/null |
	awk '$1 == "init" { printf "%-50s %8s ms %8s bytes %6s allocs\n", $2, $5, $8, $10; total += $5; n++ }
	     END { printf "%-50s %8.3f ms in %d packages\n", "total", total, n }' |
	sort -k2 -nr | head -13
