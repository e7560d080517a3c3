#!/usr/bin/env bash
# Compares the ocfetch egress proxy with Stripe's smokescreen v0.1.0 on
# loopback: small-request rate through CONNECT, 100 MB throughput, peak RSS.
# Installs smokescreen into a temporary GOBIN (never into this module) and
# builds the driver there; nothing is left behind. Extra arguments go to the
# driver (see `go run ./bench/proxy -h`), e.g. ./bench/proxy/run.sh -n 20000 -c 64
#
# Both binaries are built as a release is (-trimpath, -ldflags "-s -w":
# the flags of the release config), so the peak RSS compares like with
# like: a binary's file-backed pages are part of its RSS. RELEASE=0 builds
# both with the toolchain's defaults instead.
set -euo pipefail
flags=(-trimpath -ldflags "-s -w")
[ "${RELEASE:-1}" = 0 ] && flags=()
repo="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "== installing smokescreen v0.1.0 into $tmp"
if ! (cd "$tmp" && GOFLAGS=-mod=mod GOBIN="$tmp" go install "${flags[@]}" github.com/stripe/smokescreen@v0.1.0); then
	echo "smokescreen v0.1.0 did not build; see the go install output above" >&2
	exit 1
fi
echo "== building the driver"
(cd "$repo" && go build "${flags[@]}" -o "$tmp/proxybench" ./bench/proxy)
"$tmp/proxybench" -smokescreen "$tmp/smokescreen" "$@"
