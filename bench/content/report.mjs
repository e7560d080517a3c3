// Prints the comparison table from run.sh's JSON lines: the fastest round
// of each pipeline and file (wall and CPU ms per page), Node/Go ratios and
// peak RSS per pipeline process (largest over rounds).
//
//   node report.mjs results/raw-*.jsonl
import { readFileSync } from "node:fs";

const lines = readFileSync(process.argv[2], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const best = new Map(); // pipeline|file → row
const rss = new Map(); // pipeline → KiB
for (const r of lines) {
  if (r.meta) console.log(r.meta + "\n");
  if (r.peak_rss_kib !== undefined) rss.set(r.pipeline, Math.max(rss.get(r.pipeline) ?? 0, r.peak_rss_kib));
  if (r.ms_per_op !== undefined) {
    const k = r.pipeline + "|" + r.file;
    const b = best.get(k);
    if (!b || r.ms_per_op < b.ms_per_op) best.set(k, { ...r, cpu_ms_op: Math.min(r.cpu_ms_op, b?.cpu_ms_op ?? Infinity) });
  }
}
const files = [...new Set(lines.filter((r) => r.file).map((r) => r.file))];
const get = (p, f) => best.get(p + "|" + f);
const fmt = (x) => (x === undefined ? "—" : x < 10 ? x.toFixed(2) : x.toFixed(1));
const ratio = (a, b) => (a && b ? (a / b).toFixed(1) + "×" : "—");

console.log("| page | pipeline | ms/page (wall) | ms/page (CPU) | output chars | ``` lines |");
console.log("|---|---|---|---|---|---|");
for (const f of files) {
  for (const p of ["node-turndown", "go-markdown", "go-h2m-asis", "node-readability", "go-extract", "go-readability-asis", "go-text", "go-parse",
    "node-turndown@5MiB", "go-markdown@5MiB", "go-extract@5MiB", "go-text@5MiB"]) {
    const r = get(p, f);
    if (r) console.log(`| ${f} | ${p} | ${fmt(r.ms_per_op)} | ${fmt(r.cpu_ms_op)} | ${r.out_chars} | ${r.fences} |`);
  }
}
console.log("\n| page | whole page: turndown ÷ go-markdown (wall / CPU) | extraction: readability ÷ go-extract (wall / CPU) | go-markdown ÷ parse floor (CPU) |");
console.log("|---|---|---|---|");
for (const f of files) {
  const big = f.startsWith("big_") ? "@5MiB" : "";
  const td = get("node-turndown" + big, f), gm = get("go-markdown" + big, f), rd = get("node-readability" + big, f), ge = get("go-extract" + big, f), gp = get("go-parse" + big, f);
  console.log(`| ${f} | ${ratio(td?.ms_per_op, gm?.ms_per_op)} / ${ratio(td?.cpu_ms_op, gm?.cpu_ms_op)} | ${ratio(rd?.ms_per_op, ge?.ms_per_op)} / ${ratio(rd?.cpu_ms_op, ge?.cpu_ms_op)} | ${ratio(gm?.cpu_ms_op, gp?.cpu_ms_op)} |`);
}
console.log("\n| process | peak RSS (MiB) |");
console.log("|---|---|");
for (const [p, k] of [...rss.entries()].sort()) console.log(`| ${p} | ${(k / 1024).toFixed(1)} |`);
const pr = (a, b) => (rss.get(a) && rss.get(b) ? (rss.get(b) / rss.get(a)).toFixed(1) : "—");
console.log(`\nNode/Go peak RSS: whole page ${pr("go-markdown", "node-turndown")}×, extraction ${pr("go-extract", "node-readability")}×`);
