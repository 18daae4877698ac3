// wrk runner shared by the capture-endpoint benches: runs bench/capture-endpoint.lua against a URL
// and parses throughput, p50/p99 and the Lua script's STATUS counts.
import { join } from "node:path";

export interface WrkResult {
  rps: number;
  p50ms: number;
  p99ms: number;
  status: Record<string, number>;
}

function toMs(v: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v)!;
  return Number(m[1]) * (m[2] === "us" ? 0.001 : m[2] === "s" ? 1000 : 1);
}

export async function runWrk(
  url: string,
  opts: { env: Record<string, string>; connections: number; threads: number; duration: number },
): Promise<WrkResult> {
  const lua = join(import.meta.dir, "capture-endpoint.lua");
  const p = Bun.spawn(["wrk", `-t${opts.threads}`, `-c${opts.connections}`, `-d${opts.duration}s`, "--latency", "-s", lua, url], {
    env: { ...process.env, ...opts.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`wrk failed: ${out}${err}`);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]),
    p50ms: toMs(/\s50%\s+(\S+)/.exec(out)![1]!),
    p99ms: toMs(/\s99%\s+(\S+)/.exec(out)![1]!),
    status: JSON.parse(/STATUS (\{.*\})/.exec(out)?.[1] ?? "{}"),
  };
}
