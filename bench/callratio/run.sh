#!/usr/bin/env bash
# The ratios of issue 22's full path and issue 24's search to a plain
# http.Client request, measured side by side: the test binaries of ./fetch
# and ./search are built once, then each round runs the plain benchmark and
# the ones compared with it back to back, and the ratio of their CPU per
# call (cpu-ns/op) is taken within the round, so that the host's drift
# between rounds cancels out. Then each round runs the two interleaved
# benchmarks, which alternate the paths call by call in one process
# (testcpu.Interleave). Printed: every round's figures and ratios, then
# the median ratio of each comparison by both methods.
#
#   fetch:  LoopbackFetch/full-raw ÷ LoopbackFetch/plain (10 KB page;
#           risk.Resolve, broker.Call with every policy layer, the audit line);
#           for scale, fetch-raw (the tool alone) and full-raw-unaudited
#           (the full path with no audit log) ÷ plain
#   search: SearchTool ÷ PlainRoundTrip and SearchCall ÷ PlainRoundTrip
#           (a SearXNG answer of 10 results; SearchCall through the broker)
#
# Every request goes to a loopback test server. Each benchmark runs a fixed
# number of iterations (-test.benchtime Nx), so a round is bounded: one
# call each for the separate benchmarks, one call of every path for the
# interleaved ones (N iterations of 3 calls).
# Usage: bench/callratio/run.sh [-n ROUNDS] [-fetch CALLS] [-search CALLS]
# Defaults: 8 rounds, 4000 fetch calls and 6000 search calls per benchmark.
set -euo pipefail
export LC_ALL=C
repo="$(cd "$(dirname "$0")/../.." && pwd)"
rounds=8 fetchN=4000 searchN=6000
usage() { echo "usage: $0 [-n ROUNDS] [-fetch CALLS] [-search CALLS] (positive integers)" >&2; exit 2; }
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case "$2" in '' | *[!0-9]* | 0*) usage ;; esac
	case "$1" in
	-n) rounds="$2" ;;
	-fetch) fetchN="$2" ;;
	-search) searchN="$2" ;;
	*) usage ;;
	esac
	shift 2
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$repo" && go test -c -o "$tmp/fetch.test" ./fetch && go test -c -o "$tmp/search.test" ./search)
echo "commit $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . || echo ' (+ uncommitted changes)'), $(date -u '+%F %T UTC'), load:$(uptime | sed 's/.*load average://')"

# metric BIN DIR CALLS NAME UNIT: the figure the benchmark NAME (its line
# "BenchmarkNAME-GOMAXPROCS") reports in UNIT; a benchmark that fails or
# reports no such figure stops the script, its output shown.
metric() {
	local v pattern
	# Every element anchored: "LoopbackFetch/plain" must not also run
	# LoopbackFetchInterleaved.
	pattern=$(echo "Benchmark$4" | sed 's#[^/][^/]*#^&$#g')
	if ! (cd "$2" && "$1" -test.run '^$' -test.bench "$pattern" -test.benchtime "$3x") >"$tmp/log" 2>&1; then
		echo "callratio: $4 failed:" >&2
		cat "$tmp/log" >&2
		exit 1
	fi
	v=$(awk -v name="Benchmark$4" -v unit="$5" '$1 == name || index($1, name "-") == 1 { for (i = 2; i <= NF; i++) if ($(i + 1) == unit) { print $i; exit } }' "$tmp/log")
	if [ -z "$v" ] || [ "$v" = 0 ]; then
		echo "callratio: $4 reported no $5:" >&2
		cat "$tmp/log" >&2
		exit 1
	fi
	echo "$v"
}
# cpu BIN DIR CALLS NAME: the benchmark's cpu-ns/op.
cpu() { metric "$@" cpu-ns/op; }
# figure UNIT: UNIT's figure in the output of the last metric call; none,
# or 0, stops the script, the output shown.
figure() {
	local v
	v=$(awk -v unit="$1" '{ for (i = 2; i <= NF; i++) if ($(i + 1) == unit) { print $i; exit } }' "$tmp/log")
	if [ -z "$v" ] || [ "$v" = 0 ]; then
		echo "callratio: no $1 reported:" >&2
		cat "$tmp/log" >&2
		exit 1
	fi
	echo "$v"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf "%-6s %11s %11s %11s %11s %7s %7s %7s   %11s %11s %11s %7s %7s\n" round "fetch plain" "tool" "unaudited" "full-raw" "tool" "unaud." "full" "srch plain" "tool" "call" "tool" "call"
for r in $(seq "$rounds"); do
	fp=$(cpu "$tmp/fetch.test" "$repo/fetch" "$fetchN" LoopbackFetch/plain)
	ft=$(cpu "$tmp/fetch.test" "$repo/fetch" "$fetchN" LoopbackFetch/fetch-raw)
	fu=$(cpu "$tmp/fetch.test" "$repo/fetch" "$fetchN" LoopbackFetch/full-raw-unaudited)
	ff=$(cpu "$tmp/fetch.test" "$repo/fetch" "$fetchN" LoopbackFetch/full-raw)
	sp=$(cpu "$tmp/search.test" "$repo/search" "$searchN" PlainRoundTrip)
	st=$(cpu "$tmp/search.test" "$repo/search" "$searchN" SearchTool)
	sc=$(cpu "$tmp/search.test" "$repo/search" "$searchN" SearchCall)
	ftr=$(ratio "$ft" "$fp") fur=$(ratio "$fu" "$fp") fr=$(ratio "$ff" "$fp") tr=$(ratio "$st" "$sp") cr=$(ratio "$sc" "$sp")
	printf "%-6s %8.1f µs %8.1f µs %8.1f µs %8.1f µs %6s× %6s× %6s×   %8.1f µs %8.1f µs %8.1f µs %6s× %6s×\n" "$r" \
		"$(ratio "$fp" 1000)" "$(ratio "$ft" 1000)" "$(ratio "$fu" 1000)" "$(ratio "$ff" 1000)" "$ftr" "$fur" "$fr" \
		"$(ratio "$sp" 1000)" "$(ratio "$st" 1000)" "$(ratio "$sc" 1000)" "$tr" "$cr"
	echo "$ftr" >>"$tmp/ftool" && echo "$fur" >>"$tmp/funaudited"
	echo "$fr" >>"$tmp/fetch" && echo "$tr" >>"$tmp/tool" && echo "$cr" >>"$tmp/call"
done

echo
echo "interleaved call by call (BenchmarkLoopbackFetchInterleaved, BenchmarkSearchInterleaved):"
printf "%-6s %11s %11s %11s %7s %7s   %11s %11s %11s %7s %7s\n" round "fetch plain" "unaudited" "full-raw" "unaud." "full" "srch plain" "tool" "call" "tool" "call"
for r in $(seq "$rounds"); do
	metric "$tmp/fetch.test" "$repo/fetch" "$fetchN" LoopbackFetchInterleaved full/plain >/dev/null
	ip=$(figure plain-cpu-ns/op) iu=$(figure unaudited-cpu-ns/op) ifull=$(figure full-cpu-ns/op)
	metric "$tmp/search.test" "$repo/search" "$searchN" SearchInterleaved call/plain >/dev/null
	jp=$(figure plain-cpu-ns/op) jt=$(figure tool-cpu-ns/op) jc=$(figure call-cpu-ns/op)
	iur=$(ratio "$iu" "$ip") ifr=$(ratio "$ifull" "$ip") jtr=$(ratio "$jt" "$jp") jcr=$(ratio "$jc" "$jp")
	printf "%-6s %8.1f µs %8.1f µs %8.1f µs %6s× %6s×   %8.1f µs %8.1f µs %8.1f µs %6s× %6s×\n" "$r" \
		"$(ratio "$ip" 1000)" "$(ratio "$iu" 1000)" "$(ratio "$ifull" 1000)" "$iur" "$ifr" \
		"$(ratio "$jp" 1000)" "$(ratio "$jt" 1000)" "$(ratio "$jc" 1000)" "$jtr" "$jcr"
	echo "$ifr" >>"$tmp/ifetch" && echo "$jtr" >>"$tmp/itool" && echo "$jcr" >>"$tmp/icall"
	echo "$iur" >>"$tmp/iunaudited"
	awk -v a="$ifull" -v b="$iu" 'BEGIN { printf "%.1f\n", (a - b) / 1000 }' >>"$tmp/iaudit"
done

echo
echo "median ratio of CPU per call (targets ≤ 1.3×, issues 22 and 24):"
echo "                                      separate   interleaved"
echo "  full path (fetch, raw) ÷ plain      $(median <"$tmp/fetch")×     $(median <"$tmp/ifetch")×"
echo "  search tool ÷ plain                 $(median <"$tmp/tool")×     $(median <"$tmp/itool")×"
echo "  search through the broker ÷ plain   $(median <"$tmp/call")×     $(median <"$tmp/icall")×"
echo "for scale (no target):"
echo "  the fetch tool alone ÷ plain                  $(median <"$tmp/ftool")×     -"
echo "  the full path without the audit line ÷ plain  $(median <"$tmp/funaudited")×     $(median <"$tmp/iunaudited")×"
echo "  the audit line's CPU per call (full − unaudited, interleaved): $(median <"$tmp/iaudit") µs"
echo "load at the end:$(uptime | sed 's/.*load average://')"
