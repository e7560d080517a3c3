#!/usr/bin/env bash
# Whole-process `ocfetch get` against `curl -s` on a 10 KB loopback page
# (issues 17 and 22), interleaved rounds: wall, CPU and peak RSS, raw and
# Markdown, in a workspace with every policy layer present (the managed
# policy installed by bench/policyns.sh in a mount namespace of its own)
# and the audit line written. ocfetch is built as a release is
# (CGO_ENABLED=0, -trimpath, -ldflags "-s -w"; DYNAMIC=1 also times a
# build linked by the toolchain's default, "ocfetch-dynamic"). Then the
# system calls of one raw get (with strace, when installed) and the
# package initialisation of the binary (GODEBUG=inittrace=1): the total
# over 21 runs (median clock; bytes and allocations are the same every
# run) and the packages that allocate most.
# BASE=REV also builds git revision REV the same way, as "ocfetch-base",
# with a configuration directory of its own (its trust store and user rule
# written by its own commands, so an older release can be compared),
# and times it side by side (before/after in one run).
# Usage: bench/coldstart/run.sh [-n ROUNDS] [-limit DUR]   (default 200 rounds, at most 90 s)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
ldflags="-s -w -X main.version=bench -X main.commit=$(git -C "$repo" rev-parse HEAD)"
bins="$tmp/ocfetch"
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/ocfetch" ./cmd/ocfetch &&
	go build -o "$tmp/coldstart" ./bench/coldstart)
if [ -n "${BASE:-}" ]; then
	mkdir "$tmp/base"
	git -C "$repo" archive "$BASE" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$tmp/ocfetch-base" ./cmd/ocfetch)
	bins="$bins,$tmp/ocfetch-base"
fi
if [ "${DYNAMIC:-0}" = 1 ]; then
	(cd "$repo" && go build -trimpath -ldflags "$ldflags" -o "$tmp/ocfetch-dynamic" ./cmd/ocfetch)
	bins="$bins,$tmp/ocfetch-dynamic"
fi
echo "commit $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . || echo ' (+ uncommitted changes)'), $(date -u '+%F %T UTC'), load:$(uptime | sed 's/.*load average://')"
strace=()
command -v strace >/dev/null && strace=(-strace "$(command -v strace)")
# The trust store and user rules (the user's configuration directory) live
# in the temporary directory, never the user's own. (After the builds: go
# keeps its caches under HOME.)
mkdir -p "$tmp/config" "$tmp/home"
HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" \
	"$repo/bench/policyns.sh" "$tmp/ns" "$tmp/coldstart" -ocfetch "$bins" "${strace[@]}" "$@"
echo
echo "package init of the release binary (GODEBUG=inittrace=1; the same for every subcommand, it runs before main):"
for _ in $(seq 21); do
	GODEBUG=inittrace=1 "$tmp/ocfetch" version 2>&1 >/dev/null |
		awk '$1 == "init" { t += $5; b += $8; a += $10; n++ } END { printf "%.3f %d %d %d\n", t, b, a, n }'
done | sort -n | awk '{ v[NR] = $0 } END { split(v[int((NR + 1) / 2)], m, " "); split(v[1], lo, " "); split(v[NR], hi, " ");
	printf "  total %.2f ms clock (median of %d runs; %.2f–%.2f), %d bytes, %d allocs, %d packages\n", m[1], NR, lo[1], hi[1], m[2], m[3], m[4] }'
echo "  the 12 packages that allocate most at init (bytes, allocs, clock of one run):"
GODEBUG=inittrace=1 "$tmp/ocfetch" version 2>&1 >/dev/null |
	awk '$1 == "init" { printf "  %-56s %9d bytes %6d allocs %7s ms\n", $2, $8, $10, $5 }' | sort -k2 -nr | head -12
