// Splits the capture endpoint's latency into "inside the handler" and "everything else" (kernel,
// scheduler, load generator): the app is served through a Bun.serve that times each app.handle()
// while wrk drives it. Run: bun bench/capture-endpoint-handler-latency.ts [connections] [seconds]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../src/log.ts";
import { CAPTURE_TOKEN_PREFIX, generateToken, hashToken } from "../src/protocol/token-format.ts";
import { createApp } from "../src/server/app.ts";
import { SqliteStore } from "../src/server/store/sqlite/sqlite-store.ts";

const connections = Number(process.argv[2] ?? 8);
const seconds = Number(process.argv[3] ?? 8);
const dir = mkdtempSync(join(tmpdir(), "runner-bench-handler-"));
const store = new SqliteStore(join(dir, "runner.db"));
await store.createOrg("bench");
await store.setProfilerEnabled("bench", true);
const token = generateToken(CAPTURE_TOKEN_PREFIX);
await store.addCaptureToken("bench", "wrk", hashToken(token));
const app = createApp({ store, logger: createLogger("bench", "warn") });

const times: number[] = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const t = performance.now();
    const res = await app.handle(req);
    times.push(performance.now() - t);
    return res;
  },
});
const lua = join(dir, "post.lua");
await Bun.write(lua, `wrk.method="POST"; wrk.body='{"workload":"checkout","version":"1"}'; wrk.headers["Authorization"]="Bearer ${token}"`);
const p = Bun.spawn(["wrk", "-t2", `-c${connections}`, `-d${seconds}s`, "--latency", "-s", lua, `http://127.0.0.1:${server.port}/api/profiling/captures`], { stdout: "pipe" });
const out = await new Response(p.stdout).text();
await server.stop(true);
await store.close();
rmSync(dir, { recursive: true, force: true });

const pick = (re: RegExp) => re.exec(out)?.[1] ?? "?";
times.sort((a, b) => a - b);
const q = (x: number) => times[Math.min(times.length - 1, Math.floor(times.length * x))]!.toFixed(3);
const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
console.log(`wrk -c${connections} -d${seconds}s, load average ${load}`);
console.log(`wrk (end to end): ${pick(/Requests\/sec:\s+(\S+)/)} req/s, p50 ${pick(/\s50%\s+(\S+)/)}, p99 ${pick(/\s99%\s+(\S+)/)}`);
console.log(`handler: n ${times.length}, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, p99.9 ${q(0.999)} ms, max ${times.at(-1)!.toFixed(2)} ms`);
