// Node side of the content conversion benchmark: the pairings Node fetch
// servers ship. Run one pipeline per process so peak RSS is that
// pipeline's own:
//
//   node bench.mjs turndown    FILE...   # whole page: turndown 7.2.5
//   node bench.mjs readability FILE...   # jsdom → @mozilla/readability 0.6.0 → turndown
//
// Prints one JSON object per file ({pipeline, file, iters, ms_per_op,
// out_chars, fences}) and a last one with the process's peak RSS in KiB.
// Environment: BENCH_MIN_MS (default 3000) is the minimum timed duration per
// file, BENCH_MIN_ITERS (10) the minimum iterations, BENCH_WARMUP (5) the
// untimed runs first; BENCH_BASE_URL the page URL handed to jsdom.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import TurndownService from "turndown";
import { JSDOM } from "jsdom";
import { Readability } from "@mozilla/readability";

const [pipeline, ...files] = process.argv.slice(2);
const minMs = Number(process.env.BENCH_MIN_MS ?? 3000);
const minIters = Number(process.env.BENCH_MIN_ITERS ?? 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 5);
const baseURL = process.env.BENCH_BASE_URL || "https://example.org/page";

function newTurndown() {
  // As Node fetch servers configure it: ATX headings, fenced code, and the
  // script/style removal they add (turndown keeps their text otherwise).
  const td = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
  td.remove(["script", "style", "noscript", "template", "title"]);
  return td;
}
const td = newTurndown();

const pipelines = {
  turndown: (html) => td.turndown(html),
  readability: (html) => {
    const dom = new JSDOM(html, { url: baseURL });
    const article = new Readability(dom.window.document).parse();
    const out = article && article.content ? td.turndown(article.content) : td.turndown(html);
    dom.window.close();
    return out;
  },
};

const run = pipelines[pipeline];
if (!run || files.length === 0) {
  console.error("usage: node bench.mjs turndown|readability FILE...");
  process.exit(2);
}

for (const file of files) {
  const html = readFileSync(file, "utf8");
  let out = "";
  for (let i = 0; i < warmup; i++) out = run(html); // warm up the JIT
  let iters = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  const cpu0 = process.cpuUsage();
  while (elapsed < minMs || iters < minIters) {
    out = run(html);
    iters++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  }
  const cpu = process.cpuUsage(cpu0);
  const fences = (out.match(/^```/gm) || []).length;
  console.log(JSON.stringify({
    pipeline: "node-" + pipeline, file: basename(file), iters,
    ms_per_op: +(elapsed / iters).toFixed(3),
    cpu_ms_op: +((cpu.user + cpu.system) / 1000 / iters).toFixed(3),
    out_chars: [...out].length, fences, body_bytes: Buffer.byteLength(html),
  }));
}
console.log(JSON.stringify({ pipeline: "node-" + pipeline, peak_rss_kib: process.resourceUsage().maxRSS }));
