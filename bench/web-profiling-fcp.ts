// First contentful paint of the Profiling page with 10,000 capture records (issue 19: under 200 ms),
// on the shipped binary: `dist/runner server` on a real SQLite file, Debian's Chromium driven by
// playwright-core, FCP read from the Performance API (a buffered "paint" observer) over several
// navigations.
//
// The store: `runner admin` creates the org, the member and the capture token; the newest 20
// records are queued through POST /api/profiling/captures on the running server (20 is the
// reference's hourly limit per organization, so the other 9,980 cannot come through the API in one
// run); the older ones are written into the same file beforehand with the columns the store
// writes, one per three minutes (the limit's pace), every state, and 500 pushed heads carry a real
// witness diff so the list's verdict column has something to read.
//
// The peer, in the same run: a bare Bun.serve answering the same paths with the same bytes and
// headers (the page's HTML as the server sent it, its stylesheet and script), so the difference
// between the two is what the runner server adds; what is common to both is Chromium's own work.
// More peer pages tell the page's own cost from Chromium's floor: the same HTML without its script,
// the same HTML cut to its first 20 table rows, and a one-line page. Navigations alternate between
// all of them so all see the same load. Two conditions: a repeat visit
// (one browser context, assets cached as the server tells) and a first visit (a fresh context for
// every navigation, nothing cached).
//
// Run: bun bench/web-profiling-fcp.ts   (RUNNER_BIN=path to another binary, BENCH_RECORDS=N,
// BENCH_RUNS=N navigations per condition and target, default 15; BENCH_SAVE=DIR keeps the page
// and its assets as served)
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { SqliteStore } from "../src/server/store/sqlite/sqlite-store.ts";
import { startJsonUrlProcess } from "./bench-process.ts";
import { benchDiffJson, CHROMIUM_ARGS, readPaint } from "./web-bench-parts.ts";

const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WARMUP = 2;
const THROUGH_API = 20;
const CHROMIUM = process.env.RUNNER_CHROMIUM ?? "/usr/bin/chromium";
const BIN = process.env.RUNNER_BIN ?? resolve(import.meta.dir, "../dist/runner");
if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build it first (bun scripts/build.ts) or set RUNNER_BIN`);
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium)`);

const work = mkdtempSync(join(tmpdir(), "runner-bench-fcp-"));
const data = join(work, "data");
const PASSWORD = "benchmark password 123";

function admin(args: string[], stdin?: string): string {
  const r = Bun.spawnSync([BIN, "admin", "--data", data, ...args], { stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin), stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`runner admin ${args.join(" ")} failed: ${r.stderr.toString()}`);
  return r.stdout.toString().trimEnd().split("\n").at(-1)!;
}

/** The older records, written into the runner's own file before the server starts. */
async function seedOlderRecords(orgId: number, count: number, newestAt: number): Promise<void> {
  const db = new Database(join(data, "runner.db"));
  const ins = db.query(
    `INSERT INTO capture_requests (request_id, org_id, workload, version, env, kind, duration_sec, warmup_sec, requester, status, outcome, reason, instrumentation, dedupe_key, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 60, 5, ?, 'done', ?, ?, ?, ?, ?, ?)`,
  );
  const step = 180_000; // 20 an hour
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const at = newestAt - (count - i) * step;
      const outcome = (["pushed", "nothing_to_push", "failed"] as const)[i % 3]!;
      ins.run(
        Bun.randomUUIDv7(), orgId, `service-${i % 20}`, `1.${i}`, ["prod", "staging", ""][i % 3]!, i % 4 ? "head" : "replicate",
        i % 2 ? "ci-pipeline" : "alice@acme.test", outcome, outcome === "failed" ? "target not running on any node" : null,
        i % 3 === 0 ? JSON.stringify({ probes_requested: 3, probes_attached: 2, missing: [{ probe: "offcpu", reason: "tracefs not mounted" }] }) : null,
        `seed-${i}`, at, at + 65_000,
      );
    }
  })();
  db.close();
  // Stored diffs under the newest 500 pushed heads, through the store's own write path.
  const store = new SqliteStore(join(data, "runner.db"));
  const json = benchDiffJson();
  const heads = store.db
    .query("SELECT request_id FROM capture_requests WHERE outcome = 'pushed' AND kind = 'head' ORDER BY created_at DESC LIMIT 500")
    .all() as { request_id: string }[];
  for (const h of heads) await store.saveDiff({ requestId: h.request_id, comparedWith: { requestId: h.request_id, version: "1.0" }, note: "bench", verdict: "changed", json, html: null, createdAt: newestAt });
  await store.close();
}

async function measure(ctx: BrowserContext, url: string) {
  const page = await ctx.newPage();
  const res = await page.goto(url, { waitUntil: "load" });
  if (res?.status() !== 200) throw new Error(`${url}: ${res?.status()}`);
  const m = await page.evaluate(readPaint);
  await page.close();
  if (m.fcp === null) throw new Error(`${url}: no first-contentful-paint entry within 5 s`);
  return m as { fcp: number; dcl: number };
}

const server = { proc: null as ReturnType<typeof Bun.spawn> | null };
let browser: Browser | null = null;
let peer: ReturnType<typeof Bun.serve> | null = null;
try {
  admin(["org", "create", "acme"]);
  admin(["profiler", "enable", "acme"]);
  admin(["user", "create", "acme", "bench@acme.test", "--role", "member", "--password-stdin"], `${PASSWORD}\n`);
  const token = admin(["token", "create", "acme", "ci"]);
  const orgId = (new Database(join(data, "runner.db"), { readonly: true }).query("SELECT id FROM orgs WHERE name = 'acme'").get() as { id: number }).id;
  // Older than an hour, so the 20 queued through the API fit in this hour's limit.
  await seedOlderRecords(orgId, RECORDS - THROUGH_API, Date.now() - 3_660_000);

  const s = await startJsonUrlProcess([BIN, "server", "--listen", "127.0.0.1:0", "--data", data], join(work, "server.log"), { RUNNER_LOG_LEVEL: "info" });
  server.proc = s.proc;
  for (let i = 0; i < THROUGH_API; i++) {
    const r = await fetch(`${s.url}/api/profiling/captures`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ workload: `service-${i % 20}`, version: `2.${i}`, env: "prod" }),
    });
    if (r.status !== 202) throw new Error(`queueing through the API answered ${r.status}: ${await r.text()}`);
  }
  const total = (new Database(join(data, "runner.db"), { readonly: true }).query("SELECT count(*) AS n FROM capture_requests").get() as { n: number }).n;
  if (total !== RECORDS) throw new Error(`the store holds ${total} records, not ${RECORDS}`);

  const login = await fetch(`${s.url}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ org: "acme", email: "bench@acme.test", password: PASSWORD }).toString(),
  });
  const cookie = login.headers.get("set-cookie")?.split(";")[0];
  if (!cookie) throw new Error(`sign-in answered ${login.status} without a session cookie`);

  // The peer's copy: the page and every asset it links, bytes and headers as the server sent them.
  const copy = new Map<string, { body: Uint8Array; headers: Record<string, string> }>();
  const keep = ["content-type", "cache-control", "etag", "x-content-type-options"];
  const take = async (path: string) => {
    const r = await fetch(s.url + path, { headers: { cookie } });
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    const headers: Record<string, string> = {};
    for (const k of keep) if (r.headers.has(k)) headers[k] = r.headers.get(k)!;
    const body = new Uint8Array(await r.arrayBuffer());
    copy.set(path.split("?")[0]!, { body, headers });
    return body;
  };
  const htmlBytes = await take("/profiling");
  const html = new TextDecoder().decode(htmlBytes);
  const assets = [...html.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"));
  for (const a of assets) await take(a);
  // BENCH_SAVE=DIR keeps the page and its assets, to study them without seeding again.
  if (process.env.BENCH_SAVE) for (const [p, c] of copy) await Bun.write(join(process.env.BENCH_SAVE, p.replaceAll("/", "_")), c.body);
  // More pages on the peer, to tell what the page's own bytes cost from Chromium's floor: the same
  // HTML without its script, the same HTML keeping only its first 20 table rows, and a one-line page.
  const page = copy.get("/profiling")!;
  copy.set("/profiling-without-script", { body: new TextEncoder().encode(html.replace(/<script [^>]*><\/script>/g, "")), headers: page.headers });
  let kept = 0;
  const cut = html.replace(/<tr[\s\S]*?<\/tr>/g, (row) => (kept++ < 20 ? row : ""));
  copy.set("/profiling-20-rows", { body: new TextEncoder().encode(cut), headers: page.headers });
  copy.set("/hello", { body: new TextEncoder().encode("<!doctype html><title>hello</title><h1>hello</h1>"), headers: { "content-type": "text/html" } });
  peer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const c = copy.get(new URL(req.url).pathname);
      return c ? new Response(c.body as Uint8Array<ArrayBuffer>, { headers: c.headers }) : new Response("not found", { status: 404 });
    },
  });

  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const newContext = async () => {
    const ctx = await browser!.newContext();
    await ctx.addCookies([{ name: cookie.split("=")[0]!, value: cookie.slice(cookie.indexOf("=") + 1), url: s.url }]);
    return ctx;
  };
  const appUrl = `${s.url}/profiling`;
  const peerUrl = `http://127.0.0.1:${peer.port}/profiling`;
  const targets = [
    ["runner server /profiling", appUrl],
    ["Bun.serve, same bytes (peer)", peerUrl],
    ["Bun.serve, same HTML without app.js", `${peerUrl}-without-script`],
    ["Bun.serve, same HTML cut to 20 table rows", `${peerUrl}-20-rows`],
    ["Bun.serve, one-line page", `http://127.0.0.1:${peer.port}/hello`],
  ] as const;
  type Series = { fcp: number[]; dcl: number[] };
  const results: Record<string, Series[]> = {};
  for (const condition of ["repeat visit (cached assets)", "first visit (fresh context)"] as const) {
    const series: Series[] = targets.map(() => ({ fcp: [], dcl: [] }));
    const shared = condition.startsWith("repeat") ? await newContext() : null;
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (const [t, [, url]] of targets.entries()) {
        const ctx = shared ?? (await newContext());
        const m = await measure(ctx, url);
        if (!shared) await ctx.close();
        if (i < WARMUP) continue;
        series[t]!.fcp.push(m.fcp);
        series[t]!.dcl.push(m.dcl);
      }
    }
    await shared?.close();
    results[condition] = series;
  }

  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const med = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
  const f0 = (x: number) => x.toFixed(0);
  const bytes = ["/profiling", ...assets.map((a) => a.split("?")[0]!)].map((p) => `${p} ${copy.get(p)!.body.length.toLocaleString("en")} B`).join(", ");
  console.log(`${RECORDS.toLocaleString("en")} records (${THROUGH_API} through the API), ${RUNS} measured navigations per row after ${WARMUP} warm-ups, alternating; 2 cores, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}, ${new Date().toISOString()}`);
  console.log(`binary ${BIN}; bytes of the page and its assets (runner and peer alike): ${bytes}`);
  console.log("| condition | target | FCP median ms | FCP min ms | FCP max ms | DCL median ms | FCP ratio to peer |");
  console.log("|---|---|---|---|---|---|---|");
  for (const [condition, series] of Object.entries(results)) {
    for (const [t, [name]] of targets.entries()) {
      const x = series[t]!;
      console.log(`| ${condition} | ${name} | ${f0(med(x.fcp))} | ${f0(Math.min(...x.fcp))} | ${f0(Math.max(...x.fcp))} | ${f0(med(x.dcl))} | ${(med(x.fcp) / med(series[1]!.fcp)).toFixed(2)} |`);
    }
  }
} finally {
  await browser?.close();
  peer?.stop(true);
  server.proc?.kill();
  await server.proc?.exited;
  rmSync(work, { recursive: true, force: true });
}
