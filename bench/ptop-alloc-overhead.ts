// The alloc probe's cost to its target (issue 21): a single-threaded loop of arithmetic and one
// malloc/free per iteration, paced by the arithmetic to ~0, 10k, 100k and 1M allocations per
// second, alone and under `ptop --probes alloc` (uid 65534, five file capabilities), interleaved
// in the same run.
//   bun bench/ptop-alloc-overhead.ts [--seconds 6] [--reps 3]      (root: setcap)
// Figure: iterations per CPU-second of the target, from its own once-a-second ticks once ptop's
// window is open (the uprobe trap and the BPF program run on the target's time, so their cost
// shows there while other load on a shared machine does not); per wall second beside it.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { NOBODY, setcapPtop, writeTargets } from "../test/live/ptop-harness.ts";
import { Lines } from "../test/live/line-reader.ts";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SECONDS = arg("seconds", 6);
const REPS = arg("reps", 3);
const NAME = "allocrate-bench";

const dir = mkdtempSync(join(tmpdir(), "ptop-alloc-bench-"));
chmodSync(dir, 0o755);
const ptop = setcapPtop(dir);
const bin = join(dir, NAME);
const cc = Bun.spawnSync(["cc", "-O2", resolve(import.meta.dir, "alloc-rate.c"), "-o", bin], { stderr: "pipe" });
if (cc.exitCode !== 0) throw new Error(`cc failed: ${cc.stderr}`);
chmodSync(bin, 0o755);
const targets = writeTargets(dir, { targets: [{ workload: NAME }] });

const TICK = /tick (\d+) (\d+) \d\n/g;

async function run(spin: number, seconds: number, withMalloc: boolean, probe: boolean) {
  const work = Bun.spawn([...NOBODY, bin, String(spin), withMalloc ? "malloc" : "nomalloc"], { stdout: "pipe" });
  const ticks = new Lines(work.stdout);
  let tool: ReturnType<typeof Bun.spawn> | undefined;
  let stream: Lines | undefined;
  try {
    await ticks.until(/tick/, 10_000);
    if (probe) {
      tool = Bun.spawn([...NOBODY, ptop, "--targets", targets, "--workload", NAME, "--duration", "600", "--probes", "alloc"], { stdout: "pipe", stderr: "pipe" });
      stream = new Lines(tool.stdout as ReadableStream<Uint8Array>);
      await stream.until(/"type":"axis"|"type":"summary"/, 60_000); // the window is open, the uprobes in place
    }
    const countTicks = (text: string) => [...text.matchAll(TICK)].length;
    // The next tick but one: a whole second that starts after the window opened.
    const first = countTicks(await ticks.snapshot()) + 2;
    await ticks.until(new RegExp(`(?:tick .*\\n[^]*){${first + seconds}}`), (seconds + 10) * 1000);
    const all = [...(await ticks.snapshot()).matchAll(TICK)].map((m) => ({ it: Number(m[1]), cpu: Number(m[2]) }));
    const a = all[first - 1]!;
    const b = all[first - 1 + seconds]!;
    let attached: boolean | undefined;
    let calls = NaN;
    if (tool && stream) {
      tool.kill("SIGTERM");
      const text = await stream.rest();
      await tool.exited;
      attached = /"name":"alloc","attached":true/.test(text);
      const m = text.match(/"measured_sec":([\d.]+)/);
      calls = Number(text.match(/bytes in (\d+) calls/)?.[1] ?? NaN) / Number(m?.[1] ?? NaN);
    }
    return { perCpu: (b.it - a.it) / ((b.cpu - a.cpu) / 1e9), perWall: (b.it - a.it) / seconds, attached, calls };
  } finally {
    tool?.kill("SIGKILL");
    work.kill("SIGKILL");
    await work.exited;
  }
}

// Calibration (no ptop): ns per unit of arithmetic, and per malloc/free.
const unit = await run(20_000, 2, false, false);
const nsPerUnit = 1e9 / (unit.perCpu * 20_000);
const bare = await run(0, 2, true, false);
const nsPerAlloc = 1e9 / bare.perCpu;
const spinFor = (rate: number) => Math.max(0, Math.round((1e9 / rate - nsPerAlloc) / nsPerUnit));
console.log(`calibration: ${nsPerUnit.toFixed(3)} ns per arithmetic unit, ${nsPerAlloc.toFixed(1)} ns per malloc+free (alone)`);

const rates = [0, 10_000, 100_000, 1_000_000];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log("| target allocations/s | measured alone (allocs per target CPU-second) | slowdown per target CPU-second | slowdown per wall second | allocation calls ptop counted per wall second |");
console.log("|---|---|---|---|---|");
// Per wall second depends on how much CPU the shared machine gave the target: reported, not the figure.
for (const rate of rates) {
  // Rate 0: the 100k loop without its malloc (ptop attached to a libc that is never called).
  const spin = spinFor(rate === 0 ? 100_000 : rate);
  const alone: Awaited<ReturnType<typeof run>>[] = [];
  const probed: Awaited<ReturnType<typeof run>>[] = [];
  for (let r = 0; r < REPS; r++) {
    alone.push(await run(spin, SECONDS, rate > 0, false));
    probed.push(await run(spin, SECONDS, rate > 0, true));
  }
  if (probed.some((p) => !p.attached)) throw new Error("ptop did not attach the alloc probe");
  const slow = (k: "perCpu" | "perWall") => (1 - median(probed.map((x) => x[k])) / median(alone.map((x) => x[k]))) * 100;
  const measured = rate === 0 ? 0 : median(alone.map((x) => x.perCpu));
  const counted = rate === 0 ? 0 : median(probed.map((x) => x.calls));
  console.log(`| ${rate.toLocaleString("en")} | ${Math.round(measured).toLocaleString("en")} | ${slow("perCpu").toFixed(2)}% | ${slow("perWall").toFixed(2)}% | ${Math.round(counted).toLocaleString("en")} |`);
}
console.log(`load average: ${(await Bun.file("/proc/loadavg").text()).trim()}; ${SECONDS} s per run, median of ${REPS}, kernel ${(await Bun.file("/proc/sys/kernel/osrelease").text()).trim()}`);
rmSync(dir, { recursive: true, force: true });
