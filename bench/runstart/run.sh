#!/usr/bin/env bash
# The start of the sandbox: `ocfetch run -- true`, this tree's ocfetch
# against the one of commit BASE (default 3493f8a, before the filesystem
# confinement of issue 20), interleaved rounds, wall and CPU time.
# Usage: [BASE=COMMIT] bench/runstart/run.sh [-n ROUNDS]
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
base="${BASE:-3493f8a}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
git -C "$repo" archive "$base" | tar -x -C "$tmp/src"
(cd "$tmp/src" && go build -trimpath -ldflags "-s -w" -o "$tmp/ocfetch-$base" ./cmd/ocfetch)
(cd "$repo" && go build -trimpath -ldflags "-s -w" -o "$tmp/ocfetch-this" ./cmd/ocfetch &&
	go build -o "$tmp/runstart" ./bench/runstart)
# The run's configuration directory is the temporary one, never the user's.
mkdir -p "$tmp/config" "$tmp/home"
XDG_CONFIG_HOME="$tmp/config" HOME="$tmp/home" "$tmp/runstart" -ocfetch "$tmp/ocfetch-$base,$tmp/ocfetch-this" "$@"
