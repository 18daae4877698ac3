// Capture endpoint throughput, SQLite store vs PostgreSQL store, in the same run, on the COMPILED
// `runner` binary with wrk (same Lua script and scenarios as bench/capture-endpoint.ts):
//   "429"          an org that already queued its 20 requests this hour (token lookup, opt-in, body, limit check)
//   "202 deduped"  one request repeated: queued once, then deduped (the dedupe lookup)
// plus the PostgreSQL store with three replicas, each driven by its own wrk, summed.
//   RUNNER_TEST_DATABASE_URL=postgres://… bun bench/store-capture-endpoint.ts
// Env: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default "16,64"), RUNNER_BIN.
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "../test/helpers/postgres.ts";
import { runnerBinary, startJsonUrlProcess } from "./bench-process.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

const duration = Number(process.env.BENCH_DURATION ?? 10);
const concurrencies = (process.env.BENCH_CONNECTIONS ?? "16,64").split(",").map(Number);
const baseUrl = process.env.RUNNER_TEST_DATABASE_URL;
if (!baseUrl) throw new Error("set RUNNER_TEST_DATABASE_URL to a PostgreSQL server this bench may create a database on");
const work = mkdtempSync(join(tmpdir(), "runner-store-bench-"));
const running: Array<ReturnType<typeof Bun.spawn>> = [];

const bin = await runnerBinary(work);

const db = await createTestDatabase(baseUrl, "bench");
const pgUrl = db.url;
const adminSql = new SQL(baseUrl, { max: 1 });

async function startServer(storeArgs: string[]) {
  const { proc, url } = await startJsonUrlProcess([bin, "server", "--listen", "127.0.0.1:0", ...storeArgs], join(work, `${running.length}.log`), {
    RUNNER_LOG_LEVEL: "info",
  });
  running.push(proc);
  return url;
}

function admin(storeArgs: string[], ...args: string[]): string {
  const r = Bun.spawnSync([bin, "admin", ...storeArgs, ...args], { stderr: "inherit" });
  if (r.exitCode !== 0) throw new Error(`admin ${args.join(" ")} failed`);
  return r.stdout.toString().trimEnd().split("\n").at(-1)!;
}

function wrk(url: string, token: string, connections: number, threads = 2): Promise<WrkResult> {
  return runWrk(url, { env: { TOKEN: token }, connections, threads, duration });
}

/** Orgs and tokens for both scenarios; the limited org's quota used up. */
async function prepare(storeArgs: string[], url: string) {
  const tokens: Record<string, string> = {};
  for (const org of ["bench-limited", "bench-dedupe"]) {
    admin(storeArgs, "org", "create", org);
    admin(storeArgs, "profiler", "enable", org);
    tokens[org] = admin(storeArgs, "token", "create", org, "wrk");
  }
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${url}/api/profiling/captures`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens["bench-limited"]}` },
      body: JSON.stringify({ workload: "fill", version: String(i) }),
    });
    if (r.status !== 202) throw new Error(`prefill answered ${r.status}`);
  }
  return { limited: tokens["bench-limited"]!, dedupe: tokens["bench-dedupe"]! };
}

try {
  const sqliteArgs = ["--data", join(work, "data")];
  const pgArgs = ["--database-url", pgUrl];
  admin(pgArgs, "migrate");
  const sqliteUrl = await startServer(sqliteArgs);
  const pgUrls = [await startServer(pgArgs), await startServer(pgArgs), await startServer(pgArgs)];
  const sqliteTokens = await prepare(sqliteArgs, sqliteUrl);
  const pgTokens = await prepare(pgArgs, pgUrls[0]!);
  const ep = (u: string) => `${u}/api/profiling/captures`;
  // warm-up, not recorded
  await wrk(ep(sqliteUrl), sqliteTokens.dedupe, concurrencies[0]!);
  for (const u of pgUrls) await wrk(ep(u), pgTokens.dedupe, concurrencies[0]!);

  const rows: string[] = [];
  let bad = false;
  const row = (c: number, store: string, path: string, r: WrkResult) => {
    bad ||= (r.status["5xx"] ?? 1) !== 0 || (r.status.socket_errors ?? 0) !== 0;
    rows.push(`| ${c} | ${store} | ${path} | ${Math.round(r.rps).toLocaleString("en")} | ${r.p50ms.toFixed(2)} | ${r.p99ms.toFixed(2)} | ${r.status["2xx"]} / ${r.status["429"]} / ${r.status["5xx"]} |`);
  };
  for (const c of concurrencies) {
    for (const [path, key] of [["429", "limited"], ["202 deduped", "dedupe"]] as const) {
      row(c, "SQLite, 1 server", path, await wrk(ep(sqliteUrl), sqliteTokens[key], c));
      row(c, "PostgreSQL, 1 replica", path, await wrk(ep(pgUrls[0]!), pgTokens[key], c));
      // three replicas, the connections split over them, one wrk thread each; summed
      const parts = await Promise.all(pgUrls.map((u) => wrk(ep(u), pgTokens[key], Math.max(1, Math.round(c / 3)), 1)));
      const sum: WrkResult = {
        rps: parts.reduce((a, r) => a + r.rps, 0),
        p50ms: Math.max(...parts.map((r) => r.p50ms)),
        p99ms: Math.max(...parts.map((r) => r.p99ms)),
        status: Object.fromEntries(["2xx", "429", "5xx", "socket_errors"].map((k) => [k, parts.reduce((a, r) => a + (r.status[k] ?? 0), 0)])),
      };
      row(c, "PostgreSQL, 3 replicas (sum; worst p50/p99)", path, sum);
    }
  }
  const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  const [{ version }] = await adminSql`SELECT version()`;
  console.log(`wrk -d${duration}s, ${navigator.hardwareConcurrency} cores, load average ${load}, ${new Date().toISOString()}`);
  console.log(`${String(version).split(",")[0]}, same machine, over TCP on 127.0.0.1`);
  console.log("| connections | store | path | req/s | p50 ms | p99 ms | 2xx / 429 / 5xx |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
  process.exitCode = bad ? 1 : 0;
} finally {
  for (const p of running) p.kill();
  await Promise.all(running.map((p) => p.exited));
  await adminSql.close();
  await db.drop().catch(() => {});
  rmSync(work, { recursive: true, force: true });
}
