// Load benchmark of POST /api/profiling/captures on the COMPILED `runner` binary, with wrk,
// against a bare Bun.serve hello-world measured in the same run.
//   bun bench/capture-endpoint.ts            (builds a private binary first)
//   RUNNER_BIN=/path/to/runner bun bench/capture-endpoint.ts
// Env: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (comma list, default "16,64"), BENCH_THREADS (default 2).
// wrk is closed-loop: mean latency = connections / throughput, so p99 is reported per concurrency.
// Scenarios: "429" (an org that already queued its 20 requests this hour; every request refused)
// and "202 deduped" (one request repeated; it is queued once, then deduped). Both run every check:
// token shape + hash lookup, opt-in, body validation, one IMMEDIATE transaction.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runnerBinary, startJsonUrlProcess } from "./bench-process.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

const duration = Number(process.env.BENCH_DURATION ?? 10);
const concurrencies = (process.env.BENCH_CONNECTIONS ?? "16,64").split(",").map(Number);
const threads = Number(process.env.BENCH_THREADS ?? 2);
const work = mkdtempSync(join(tmpdir(), "runner-bench-"));
const running: Array<ReturnType<typeof Bun.spawn>> = [];

const bin = await runnerBinary(work);

function startProcess(cmd: string[], env: Record<string, string> = {}) {
  return startJsonUrlProcess(cmd, join(work, `${running.length}.log`), env);
}

function admin(...args: string[]): string {
  const r = Bun.spawnSync([bin, "admin", "--data", join(work, "data"), ...args], { stderr: "inherit" });
  if (r.exitCode !== 0) throw new Error(`admin ${args.join(" ")} failed`);
  return r.stdout.toString().trimEnd().split("\n").at(-1)!;
}

function wrk(url: string, env: Record<string, string>, connections: number): Promise<WrkResult> {
  return runWrk(url, { env, connections, threads, duration });
}

try {
  admin("org", "create", "bench-limited");
  admin("profiler", "enable", "bench-limited");
  const limitedToken = admin("token", "create", "bench-limited", "wrk");
  admin("org", "create", "bench-dedupe");
  admin("profiler", "enable", "bench-dedupe");
  const dedupeToken = admin("token", "create", "bench-dedupe", "wrk");

  const server = await startProcess([bin, "server", "--listen", "127.0.0.1:0", "--data", join(work, "data")], { RUNNER_LOG_LEVEL: "info" });
  running.push(server.proc);
  const hello = await startProcess([process.execPath, join(import.meta.dir, "capture-endpoint-hello.ts")]);
  running.push(hello.proc);
  const captures = `${server.url}/api/profiling/captures`;

  // use up the quota of the "limited" org, so that every measured request there is a 429
  for (let i = 0; i < 20; i++) {
    const r = await fetch(captures, { method: "POST", headers: { authorization: `Bearer ${limitedToken}` }, body: JSON.stringify({ workload: "fill", version: String(i) }) });
    if (r.status !== 202) throw new Error(`prefill answered ${r.status}`);
  }
  // warm-up of each target (JIT, page cache), not recorded
  for (const url of [hello.url, captures]) await wrk(url, { TOKEN: dedupeToken }, concurrencies[0]!);

  const rows: string[] = [];
  const runs: WrkResult[] = [];
  for (const c of concurrencies) {
    const helloRun = await wrk(hello.url, {}, c);
    const limitedRun = await wrk(captures, { TOKEN: limitedToken }, c);
    const dedupeRun = await wrk(captures, { TOKEN: dedupeToken }, c);
    runs.push(limitedRun, dedupeRun);
    const row = (name: string, r: WrkResult) =>
      `| ${c} | ${name} | ${Math.round(r.rps).toLocaleString("en")} | ${r.p50ms.toFixed(2)} | ${r.p99ms.toFixed(2)} | ${r.status["5xx"] ?? "?"} | ${(r.rps / helloRun.rps).toFixed(2)} | ${r.status["2xx"]} / ${r.status["429"]} / ${r.status["4xx_other"]} |`;
    rows.push(row("Bun.serve hello-world (peer)", helloRun), row("capture endpoint, 429 path", limitedRun), row("capture endpoint, 202 deduped path", dedupeRun));
  }
  const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");

  const size = statSync(bin).size;
  const hf = Bun.spawnSync(["hyperfine", "--warmup", "3", "--runs", "30", "--export-json", join(work, "hf.json"), `${bin} --version`], { stdout: "ignore", stderr: "ignore" });
  const startup = hf.exitCode === 0 ? (await Bun.file(join(work, "hf.json")).json()).results[0] : null;

  console.log(`wrk -t${threads} -d${duration}s, ${navigator.hardwareConcurrency} cores, load average ${load}, ${new Date().toISOString()}`);
  console.log("| connections | target | req/s | p50 ms | p99 ms | 5xx | ratio to hello | 2xx / 429 / other 4xx |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
  console.log(`binary: ${(size / 1024 / 1024).toFixed(1)} MiB`);
  if (startup) console.log(`startup (hyperfine, runner --version): mean ${(startup.mean * 1000).toFixed(1)} ms ± ${(startup.stddev * 1000).toFixed(1)} ms`);
  const failed = runs.some((r) => (r.status["5xx"] ?? 1) !== 0 || (r.status.socket_errors ?? 0) !== 0);
  process.exitCode = failed ? 1 : 0;
} finally {
  for (const p of running) p.kill();
  rmSync(work, { recursive: true, force: true });
}
