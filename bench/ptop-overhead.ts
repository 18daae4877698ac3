// ptop overhead on a CPU-bound target, against `perf record -F 99 -g` measured in the same run.
//   bun bench/ptop-overhead.ts [--seconds 10] [--reps 3]      (root: setcap, perf)
// 1. Throughput of hotloop (one busy thread per CPU) alone, under ptop (cpu probe, 99 Hz, run as
//    uid 65534 with the five file capabilities) and under perf record -F 99 -g, interleaved reps.
// 2. ptop's own CPU time and peak RSS while capturing 16 busy target threads.
import { mkdtempSync, chmodSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { buildHotloop, setcapPtop, writeTargets, NOBODY } from "../test/live/ptop-harness.ts";
import { runWithPeakRss } from "../test/helpers/peak-rss.ts";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SECONDS = arg("seconds", 10);
const REPS = arg("reps", 3);
const THREADS = cpus().length;

const dir = mkdtempSync(join(tmpdir(), "ptop-bench-"));
chmodSync(dir, 0o755);
const ptop = setcapPtop(dir);
const hotloop = buildHotloop(dir);
const targets = writeTargets(dir, { targets: [{ workload: "hotloop" }] });

/** Rounds per wall second and per CPU-second of the target. The machine may be shared: rounds per
 * CPU-second is the robust figure (the BPF program and the sampling interrupt run on the target's
 * time, so their cost shows there, while other load on the machine does not). */
async function rounds(threads: number, seconds: number, capture: "none" | "ptop" | "perf") {
  const work = Bun.spawn([...NOBODY, hotloop, String(threads), String(seconds)], { stdout: "pipe" });
  let tool: ReturnType<typeof Bun.spawn> | undefined;
  await Bun.sleep(100);
  const window = String(seconds - 1);
  if (capture === "ptop")
    tool = Bun.spawn([...NOBODY, ptop, "--targets", targets, "--workload", "hotloop", "--duration", window, "--probes", "cpu"], { stdout: "ignore", stderr: "ignore" });
  if (capture === "perf")
    tool = Bun.spawn(["perf", "record", "-q", "-F", "99", "-g", "-p", String(work.pid), "-o", join(dir, "perf.data"), "--", "sleep", window], { stdout: "ignore", stderr: "ignore" });
  const out = await new Response(work.stdout).text();
  await work.exited;
  if (tool) await tool.exited;
  const n = Number(out.match(/rounds (\d+)/)?.[1] ?? NaN);
  const ru = work.resourceUsage();
  const cpu = ru ? (Number(ru.cpuTime.user) + Number(ru.cpuTime.system)) / 1e6 : NaN;
  return { wall: n / seconds, perCpu: n / cpu };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const results: Record<string, Array<{ wall: number; perCpu: number }>> = { none: [], ptop: [], perf: [] };
for (let r = 0; r < REPS; r++)
  for (const mode of ["none", "ptop", "perf"] as const) results[mode]!.push(await rounds(THREADS, SECONDS, mode));

for (const metric of ["perCpu", "wall"] as const) {
  const med = (m: string) => median(results[m]!.map((x) => x[metric]));
  const slow = (m: string) => (1 - med(m) / med("none")) * 100;
  const label = metric === "perCpu" ? "rounds per target CPU-second" : "rounds per wall second";
  console.log(`${label} (${THREADS} threads, ${SECONDS} s, median of ${REPS}): none ${med("none").toFixed(0)}, ptop ${med("ptop").toFixed(0)}, perf ${med("perf").toFixed(0)}; slowdown ptop ${slow("ptop").toFixed(2)}%, perf record -F 99 -g ${slow("perf").toFixed(2)}%`);
}
console.log(`load average during the run: ${(await Bun.file("/proc/loadavg").text()).trim()}`);

// ptop's own cost with 16 busy target threads (all probes: tracefs mounted for the run if needed).
const hadTracefs = (await Bun.file("/proc/self/mounts").text()).includes(" /sys/kernel/tracing tracefs ");
if (!hadTracefs) Bun.spawnSync(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"]);
async function ptopCost(window: number) {
  const work16 = Bun.spawn([...NOBODY, hotloop, "16", String(window + 3)], { stdout: "ignore" });
  await Bun.sleep(300);
  const t0 = performance.now();
  // Through the python3 parent of peak-rss.ts: spawned straight from this Bun process, ptop's
  // ru_maxrss started at Bun's own high-water mark (carried across exec), not ptop's.
  const r = await runWithPeakRss([...NOBODY, ptop, "--targets", targets, "--workload", "hotloop", "--duration", String(window)], { stderr: "ignore" });
  const wall = (performance.now() - t0) / 1000;
  work16.kill("SIGTERM");
  await work16.exited;
  return { wall, cpuSec: r.cpuSec, rssMiB: r.maxRssMiB, stream: r.out };
}
const short = await ptopCost(SECONDS);
const long = await ptopCost(3 * SECONDS);
const stream = long.stream;
const samples = stream.match(/"samples":\{"cpu":(\d+)/)?.[1];
const perSecond = (long.cpuSec - short.cpuSec) / (2 * SECONDS);
const fixed = short.cpuSec - perSecond * SECONDS;
if (!hadTracefs) Bun.spawnSync(["umount", "/sys/kernel/tracing"]);
const attached = [...stream.matchAll(/"name":"(\w+)","attached":true/g)].map((m) => m[1]).join(",");
for (const [w, r] of [[SECONDS, short], [3 * SECONDS, long]] as const)
  console.log(`ptop with 16 busy threads, probes ${attached}, ${w} s window: CPU ${r.cpuSec.toFixed(3)} s over ${r.wall.toFixed(1)} s wall = ${((r.cpuSec / r.wall) * 100).toFixed(2)}% of one core; peak RSS ${r.rssMiB.toFixed(1)} MiB`);
console.log(`ptop steady state: ${(perSecond * 100).toFixed(2)}% of one core while measuring, plus ${(fixed * 1000).toFixed(0)} ms fixed (load/attach + symbolize); ${samples} cpu samples in the ${3 * SECONDS} s window`);
rmSync(dir, { recursive: true, force: true });
