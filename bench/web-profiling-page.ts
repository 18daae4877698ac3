// Profiling page first render with 10k capture records (issue 7: under 200 ms).
// Server side: GET /profiling (first page, 100 newest of 10,000 records) over real HTTP against a
// real SQLite file, cold first request and 50 warm ones, filtered by workload, and the 10th page;
// the peer is GET /healthz of the same server in the same run. Browser side: Debian's Chromium
// (playwright-core) navigating to the page, first contentful paint from navigation start.
// Run: bun bench/web-profiling-page.ts   (BENCH_RECORDS=N to change the 10,000)
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../src/log.ts";
import { startServer } from "../src/server/start-server.ts";
import { SqliteStore } from "../src/server/store/sqlite/sqlite-store.ts";
import { createMember } from "../src/server/users/create-user.ts";
import { benchDiffJson, CHROMIUM_ARGS, readPaint } from "./web-bench-parts.ts";

const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);
const RUNS = 50;
const CHROMIUM = "/usr/bin/chromium";

const dir = mkdtempSync(join(tmpdir(), "runner-bench-web-"));
const store = new SqliteStore(join(dir, "runner.db"));
const server = await startServer({ hostname: "127.0.0.1", port: 0, store, logger: createLogger("bench", "silent") });
const org = await store.createOrg("acme");
const password = "benchmark password 123";
await createMember(store, "acme", "bench@acme.test", "member", password);

// 10k records spread over 20 workloads, 3 envs, every state, a third with instrumentation.
const t0 = Date.now() - RECORDS * 1000;
store.db.transaction(() => {
  const ins = store.db.query(
    `INSERT INTO capture_requests (request_id, org_id, workload, version, env, kind, duration_sec, warmup_sec, requester, status, outcome, reason, instrumentation, dedupe_key, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 60, 5, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (let i = 0; i < RECORDS; i++) {
    const done = i < RECORDS - 5;
    const outcome = done ? ((["pushed", "nothing_to_push", "failed"] as const)[i % 3] ?? null) : null;
    ins.run(
      Bun.randomUUIDv7(), org.id, `service-${i % 20}`, `1.${i}`, ["prod", "staging", ""][i % 3]!, i % 4 ? "head" : "replicate",
      i % 2 ? "ci-pipeline" : "alice@acme.test", done ? "done" : "queued", outcome, outcome === "failed" ? "target not running on any node" : null,
      i % 3 === 0 ? JSON.stringify({ probes_requested: 3, probes_attached: 2, missing: [{ probe: "offcpu", reason: "tracefs not mounted" }] }) : null,
      `k${i}`, t0 + i * 1000, t0 + i * 1000,
    );
  }
})();

// Every pushed head among the newest 2,000 records has a stored diff (the list's verdict column
// reads them): one real witness diff of two 3-capture versions, stored under each head.
{
  const json = benchDiffJson();
  const heads = store.db
    .query("SELECT request_id FROM capture_requests WHERE outcome = 'pushed' AND kind = 'head' ORDER BY created_at DESC LIMIT 2000")
    .all() as { request_id: string }[];
  for (const h of heads.slice(0, 500)) await store.saveDiff({ requestId: h.request_id, comparedWith: { requestId: h.request_id, version: "1.0" }, note: "bench", verdict: "changed", json, html: null, createdAt: t0 });
  console.log(`${Math.min(500, heads.length)} pushed heads carry a stored diff of ${json.length.toLocaleString("en")} bytes of JSON`);
}

const login = await fetch(`${server.url}/login`, {
  method: "POST",
  redirect: "manual",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({ org: "acme", email: "bench@acme.test", password }).toString(),
});
const cookie = login.headers.get("set-cookie")!.split(";")[0]!;

async function time(path: string, runs: number): Promise<{ p50: number; p95: number; bytes: number; first: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const res = await fetch(server.url + path, { headers: { cookie } });
    const body = await res.text();
    ms.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    bytes = body.length;
  }
  const first = ms[0]!;
  const warm = ms.slice(1).sort((a, b) => a - b);
  return { first, p50: warm[Math.floor(warm.length / 2)]!, p95: warm[Math.floor(warm.length * 0.95)]!, bytes };
}

const healthz = await time("/healthz", RUNS);
const first = await time("/profiling", RUNS);
const filtered = await time("/profiling?workload=service-7&env=prod", RUNS);
const tenth = await (async () => {
  const rows = store.db.query("SELECT created_at, request_id FROM capture_requests ORDER BY created_at DESC, request_id DESC LIMIT 1 OFFSET 899").get() as { created_at: number; request_id: string };
  return time(`/profiling?before=${rows.created_at}.${rows.request_id}`, RUNS);
})();

let browser = "chromium not installed: skipped";
if (existsSync(CHROMIUM)) {
  // Peer: a bare hello-world page from Bun.serve, navigated alternately with the Profiling page, so
  // both see the same machine load; Chromium's own paint latency is most of either number.
  const hello = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<!doctype html><title>hello</title><h1>hello</h1>", { headers: { "content-type": "text/html" } }) });
  const { chromium } = await import("playwright-core");
  const b = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const ctx = await b.newContext();
  await ctx.addCookies([{ name: "runner_session", value: cookie.split("=")[1]!, url: server.url }]);
  const page = await ctx.newPage();
  const measure = async (u: string) => {
    await page.goto(u, { waitUntil: "load" });
    return page.evaluate(readPaint);
  };
  const app = { fcp: [] as number[], dcl: [] as number[] };
  const peer = { fcp: [] as number[], dcl: [] as number[] };
  for (let i = 0; i < 12; i++) {
    const a = await measure(`${server.url}/profiling?n=${i}`);
    const h = await measure(`http://127.0.0.1:${hello.port}/?n=${i}`);
    if (i < 2) continue; // warm-up of the browser itself
    if (a.fcp !== null) app.fcp.push(a.fcp);
    if (h.fcp !== null) peer.fcp.push(h.fcp);
    app.dcl.push(a.dcl);
    peer.dcl.push(h.dcl);
  }
  await b.close();
  hello.stop();
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? NaN;
  browser = [
    "Chromium, 10 alternating navigations each (median / min):",
    `  /profiling (10k records, 100 shown): first contentful paint ${med(app.fcp).toFixed(0)} / ${Math.min(...app.fcp).toFixed(0)} ms, DOMContentLoaded ${med(app.dcl).toFixed(0)} / ${Math.min(...app.dcl).toFixed(0)} ms`,
    `  hello-world page (peer):              first contentful paint ${med(peer.fcp).toFixed(0)} / ${Math.min(...peer.fcp).toFixed(0)} ms, DOMContentLoaded ${med(peer.dcl).toFixed(0)} / ${Math.min(...peer.dcl).toFixed(0)} ms`,
    `  ratio of medians (FCP): ${(med(app.fcp) / med(peer.fcp)).toFixed(2)}`,
  ].join("\n");
}

const f = (x: number) => x.toFixed(2);
console.log(`${RECORDS} records, ${RUNS} sequential requests each, 2 cores, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}, ${new Date().toISOString()}`);
console.log("| request | cold ms | p50 ms | p95 ms | bytes | p50 ratio to /healthz |");
console.log("|---|---|---|---|---|---|");
for (const [name, r] of [["GET /healthz (peer)", healthz], ["GET /profiling (newest 100)", first], ["GET /profiling filtered workload+env", filtered], ["GET /profiling 10th page (keyset)", tenth]] as const) {
  console.log(`| ${name} | ${f(r.first)} | ${f(r.p50)} | ${f(r.p95)} | ${r.bytes.toLocaleString("en")} | ${(r.p50 / healthz.p50).toFixed(1)} |`);
}
console.log(browser);

await server.stop();
await store.close();
rmSync(dir, { recursive: true, force: true });
