// Per-call cost of an MCP fetch server over stdio, side by side:
//
//   ocfetch mcp (the release binary, every policy layer present, the
//   audit line written)   tools/call fetch {url, format: "raw"}
//   @tokenizin/mcp-npx-fetch (Node)   tools/call fetch_html {url}
//
// Both are driven by the MCP TypeScript SDK client (StdioClientTransport),
// started once, warmed up, then called in interleaved rounds (the order
// alternates every round) on the same 10 KB HTML page served on
// 127.0.0.1 by a child process of this script. Each call has its own URL
// (?call=N), so no response cache can answer it. Per server: the wall time
// of a call as the client sees it (median, p10, p90 over all calls), and
// the server process's own CPU (utime+stime from /proc/PID/stat over the
// measured rounds, divided by the calls). Every loop is bounded in count
// and in time. Run it with run.sh:
//
//   node bench.mjs --ocfetch BIN [--calls 200] [--rounds 6] [--limit 120]
//   node bench.mjs serve        (the page server: prints its port)
import { spawn, execFileSync } from "node:child_process";
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = dirname(fileURLToPath(import.meta.url));

function page() {
  let s = "<!doctype html><html><head><title>Ten KB</title></head><body><main>";
  while (s.length < 10 * 1024 - 200) s += "<p>The quick brown fox jumps over the lazy dog, again and again.</p>\n";
  return Buffer.from(s + "</main></body></html>");
}

if (process.argv[2] === "serve") {
  const body = page();
  const srv = createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Content-Length": body.length });
    res.end(body);
  });
  srv.keepAliveTimeout = 60_000;
  srv.listen(0, "127.0.0.1", () => process.stdout.write(`${srv.address().port}\n`));
  // Ends with its parent: stdin closes.
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
} else {
  await main();
}

function flag(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
}

// cpuSeconds: utime+stime of pid (fields 14 and 15 of proc(5), in ticks
// of 1/100 s).
function cpuSeconds(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

function peakRSSKiB(pid) {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmHWM:\s+(\d+)/m);
  return m ? Number(m[1]) : -1;
}

async function startPageServer() {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "serve"], { stdio: ["pipe", "pipe", "inherit"] });
  const rl = createInterface({ input: child.stdout });
  const port = await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("page server did not start within 10s")), 10_000);
    rl.once("line", (l) => { clearTimeout(t); resolve(Number(l)); });
    child.once("exit", (c) => reject(new Error(`page server exited ${c}`)));
  });
  return { port, stop: () => child.stdin.end() };
}

// setup makes root a workspace with every layer (as bench/internal/benchws
// does for the Go drivers) and returns the line saying which are present.
function setup(bin, root, port) {
  const oc = (...args) => execFileSync(bin, ["--root", root, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  oc("profile", "set", "permissive");
  oc("rules", "allow", "--user", "example.org");
  oc("local", "allow", String(port));
  oc("rules", "allow", `127.0.0.1:${port}`);
  const list = JSON.parse(oc("rules", "list", "--json"));
  const by = {};
  for (const r of list.rules) by[r.layer] = (by[r.layer] ?? 0) + 1;
  if (!list.trusted || by.workspace !== 1 || by.user !== 1) throw new Error(`rules list: ${JSON.stringify(list)}`);
  const prof = JSON.parse(oc("profile", "show", "--json"));
  if (prof.profile !== "permissive" || prof.source !== "settings") throw new Error(`profile show: ${JSON.stringify(prof)}`);
  const managed = by.managed ? `managed policy ${list.managed_file} (max_profile ${prof.max_profile})` : "managed policy ABSENT (bench/policyns.sh could not install it)";
  return `layers: ${managed}; trust store and user rules in ${dirname(list.user_file)}; workspace settings.json, local_fetch.json, rules.json; audit log ${join(root, ".oc_chat", "audit.jsonl")}`;
}

async function connect(name, command, args, tool, extra) {
  const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
  const client = new Client({ name: "ocfetch-mcp-stdio-bench", version: "0.0.0" });
  await client.connect(transport);
  return { name, client, transport, tool, extra, wall: [], cpu: 0, calls: 0 };
}

async function call(s, url) {
  const t0 = process.hrtime.bigint();
  const res = await s.client.callTool({ name: s.tool, arguments: { url, ...s.extra } });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const text = (res.content ?? []).map((c) => c.text ?? "").join("");
  if (res.isError || !text.includes("The quick brown fox")) throw new Error(`${s.name}: ${text.slice(0, 300)}`);
  return wall;
}

async function main() {
  const bin = flag("ocfetch");
  if (!bin) throw new Error("--ocfetch BIN is required (run.sh builds it)");
  const calls = Number(flag("calls", "200"));
  const rounds = Number(flag("rounds", "6"));
  const limitMs = Number(flag("limit", "120")) * 1000;
  if (!(calls >= 1 && calls <= 5000 && rounds >= 1 && rounds <= 100)) throw new Error("--calls 1–5000, --rounds 1–100");

  const srv = await startPageServer();
  const root = mkdtempSync(join(tmpdir(), "mcpstdio-"));
  const servers = [];
  try {
    const layers = setup(bin, root, srv.port);
    // A policy file changed within securefile.RacyWindow (2 s) is read on
    // every call until it is older: leave the files alone that long, as a
    // user's are between edits.
    await new Promise((r) => setTimeout(r, 2100));
    const base = `http://127.0.0.1:${srv.port}/page`;
    const peer = join(here, "node_modules", "@tokenizin", "mcp-npx-fetch", "dist", "index.js");
    const peerVersion = JSON.parse(readFileSync(join(here, "node_modules", "@tokenizin", "mcp-npx-fetch", "package.json"), "utf8")).version;
    servers.push(await connect("ocfetch mcp", bin, ["--root", root, "mcp"], "fetch", { format: "raw" }));
    servers.push(await connect(`@tokenizin/mcp-npx-fetch ${peerVersion}`, process.execPath, [peer], "fetch_html", {}));
    console.log(`ocfetch ${bin}: ${layers}`);
    console.log(`${rounds} interleaved rounds of ${calls} calls per server, 10 KB HTML page on loopback, node ${process.version}, MCP TS SDK client 1.32.2`);
    let n = 0;
    for (const s of servers) for (let i = 0; i < 50; i++) await call(s, `${base}?warm=${n++}`);
    const deadline = Date.now() + limitMs;
    let done = 0;
    for (let r = 0; r < rounds && Date.now() < deadline; r++) {
      for (let k = 0; k < servers.length; k++) {
        const s = servers[(k + r) % servers.length];
        const c0 = cpuSeconds(s.transport.pid);
        for (let i = 0; i < calls && Date.now() < deadline; i++) {
          s.wall.push(await call(s, `${base}?call=${n++}`));
          s.calls++;
        }
        s.cpu += cpuSeconds(s.transport.pid) - c0;
      }
      done++;
    }
    const q = (xs, p) => { const v = [...xs].sort((a, b) => a - b); return v[Math.min(v.length - 1, Math.floor(p * (v.length - 1)))]; };
    const med = (s) => q(s.wall, 0.5);
    const cpu = (s) => (s.cpu * 1000) / s.calls;
    console.log(`rounds done: ${done}`);
    console.log(`${"server".padEnd(34)} ${"calls".padStart(6)} ${"p10 ms".padStart(8)} ${"median ms".padStart(10)} ${"p90 ms".padStart(8)} ${"CPU ms/call".padStart(12)} ${"peak RSS MB".padStart(12)}`);
    for (const s of servers) {
      console.log(`${s.name.padEnd(34)} ${String(s.calls).padStart(6)} ${q(s.wall, 0.1).toFixed(3).padStart(8)} ${med(s).toFixed(3).padStart(10)} ${q(s.wall, 0.9).toFixed(3).padStart(8)} ${cpu(s).toFixed(3).padStart(12)} ${(peakRSSKiB(s.transport.pid) / 1024).toFixed(1).padStart(12)}`);
    }
    const [o, p] = servers;
    const wr = med(o) / med(p), cr = cpu(o) / cpu(p);
    console.log(`ocfetch ÷ peer: wall ${wr.toFixed(2)}× (target ≤ 0.75× ${wr <= 0.75 ? "met" : "NOT met"}), server CPU ${cr.toFixed(2)}×`);
    const audit = readFileSync(join(root, ".oc_chat", "audit.jsonl"), "utf8").split("\n").length - 1;
    console.log(`audit lines written by ocfetch mcp: ${audit} (calls made to it, warm-up included: ${o.calls + 50})`);
  } finally {
    for (const s of servers) await s.client.close().catch(() => {});
    srv.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
