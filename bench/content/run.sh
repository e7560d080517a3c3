#!/usr/bin/env bash
# Side-by-side benchmark of ocfetch's content conversion against the Node
# pipelines that Node fetch servers ship, on the same inputs, in one run:
#
#   whole page:  turndown 7.2.5                         vs  content.Convert (FullPage)
#   extraction:  jsdom + @mozilla/readability 0.6.0
#                + turndown                             vs  content.Convert (default)
#   floor:       golang.org/x/net/html.Parse alone
#   reference:   the Go libraries as they come (h2m-asis, readability-asis)
#
# Each pipeline runs in its own process (so peak RSS is its own), ROUNDS
# times, interleaved; report.mjs keeps the fastest round per pipeline and
# file and prints the table. Usage: bench/content/run.sh [ROUNDS]
# Env: MIN_MS (default 3000) per file and pipeline; BIG=1 also converts a
# ~5 MiB page (the Go spec repeated) to show time at the fetch body cap.
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS="${1:-3}"
MIN_MS="${MIN_MS:-3000}"
TD=../../content/testdata
FILES=("$TD/go_spec.html" "$TD/go_mem.html" "$TD/news.html")
mkdir -p results
OUT="results/raw-$(date -u +%Y%m%dT%H%M%SZ).jsonl"

[ -d node_modules ] || npm ci --no-audit --no-fund
go build -o results/gobench ./gobench

{
  echo "{\"meta\":\"date $(date -u +%FT%TZ); $(nproc) cores; $(uname -m); go $(go env GOVERSION); node $(node --version); load $(cut -d' ' -f1-3 /proc/loadavg)\"}"
  for r in $(seq "$ROUNDS"); do
    BENCH_MIN_MS="$MIN_MS" node bench.mjs turndown "${FILES[@]}"
    results/gobench -min "${MIN_MS}ms" -pipeline markdown "${FILES[@]}"
    BENCH_MIN_MS="$MIN_MS" node bench.mjs readability "${FILES[@]}"
    results/gobench -min "${MIN_MS}ms" -pipeline extract "${FILES[@]}"
    results/gobench -min "${MIN_MS}ms" -pipeline parse "${FILES[@]}"
    results/gobench -min "${MIN_MS}ms" -pipeline text "${FILES[@]}"
    if [ "$r" = 1 ]; then
      results/gobench -min "${MIN_MS}ms" -pipeline h2m-asis "${FILES[@]}"
      results/gobench -min "${MIN_MS}ms" -pipeline readability-asis "${FILES[@]}"
    fi
  done
  if [ "${BIG:-0}" = 1 ]; then
    BIGF=results/big_5mib.html
    n=$(( 5242880 / $(stat -c %s "$TD/go_spec.html") ))
    for _ in $(seq "$n"); do cat "$TD/go_spec.html"; done > "$BIGF"
    # Own processes and a "@5MiB" label, so their peak RSS is reported apart.
    {
      results/gobench -min 0s -iters 5 -pipeline markdown "$BIGF"
      results/gobench -min 0s -iters 5 -pipeline extract "$BIGF"
      results/gobench -min 0s -iters 5 -pipeline text "$BIGF"
      BENCH_MIN_MS=0 BENCH_MIN_ITERS=3 BENCH_WARMUP=1 node bench.mjs turndown "$BIGF"
    } | sed -E 's/"pipeline":"([a-z-]+)"/"pipeline":"\1@5MiB"/'
  fi
} | tee "$OUT"
node report.mjs "$OUT"
