#!/usr/bin/env bash
# System calls per call of the path `ocfetch mcp` runs (risk.Resolve +
# broker.Call with every layer present + the audit line; see main.go),
# counted with strace -c -f over N calls of bench/callpath minus a run of
# zero calls (the setup and process start), divided by N; beside the same
# count for N plain http.Client GETs. The page is served by a second
# callpath process on 127.0.0.1, so the server's calls are not counted.
# Needs strace. Usage: bench/callpath/run.sh [N]   (default 2000)
set -euo pipefail
n="${1:-2000}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
srv=""
trap '[ -n "$srv" ] && kill "$srv"; rm -rf "$tmp"' EXIT
(cd "$repo" && go build -trimpath -ldflags "-s -w" -o "$tmp/callpath" ./bench/callpath)
"$tmp/callpath" -serve >"$tmp/url" &
srv=$!
for _ in $(seq 50); do [ -s "$tmp/url" ] && break; sleep 0.1; done
url="$(cat "$tmp/url")"
count() { # total system calls of one traced run; args: callpath flags
	strace -c -f -o "$tmp/trace" "$tmp/callpath" -url "$url" "$@" >/dev/null
	awk '$NF == "total" { print $4 }' "$tmp/trace"
}
table() { # the calls of a traced run by name, most first
	strace -c -f -S calls -o "$tmp/trace" "$tmp/callpath" -url "$url" "$@" >/dev/null
	awk -v n="$n" 'NR > 2 && $1 !~ /^-/ && $NF != "total" { printf "  %-16s %8.1f per call\n", $NF, $4 / n }' "$tmp/trace" | head -12
}
for mode in full plain; do
	extra=()
	[ "$mode" = plain ] && extra=(-plain)
	base="$(count -n 0 "${extra[@]}")"
	total="$(count -n "$n" "${extra[@]}")"
	awk -v m="$mode" -v t="$total" -v b="$base" -v n="$n" 'BEGIN { printf "%-6s %6.1f system calls per call (%d calls: %d, setup alone: %d)\n", m, (t - b) / n, n, t, b }'
	if [ "$mode" = full ]; then table -n "$n"; fi
done
