// The unwinder's cost (issue 17), with compiled binaries, peers measured in the same run.
//   bun bench/ptop-unwind.ts [--seconds 10] [--reps 3] [--freqs 99,499,999] [--startup-only] [--before PTOP]
//   (root: setcap, perf)
// 1. Target slowdown: hotloop.c built -O2 -fomit-frame-pointer (one busy thread per CPU, uid
//    65534) alone, under ptop's cpu probe at each frequency (stack snapshots unwound by the
//    unprivileged child), and under `perf record -F 99 --call-graph dwarf`; interleaved reps;
//    rounds per CPU-second of the target (the sampling cost runs on the target's time).
// 2. ptop's own CPU and RSS (parent + unwinder, sampled from /proc) with 16 busy threads of node
//    (a ~100 MB binary mapping libc and libstdc++), and the time from ptop's start to its header
//    (the window is open and samples flow from then on) and to the end of the first window, with
//    ptop's own account of where the start-up time went (PTOP_DEBUG timing lines: wall and CPU
//    seconds at each step, and when the unwinder had unwound its first samples). With --before PATH
//    (another ptop build, e.g. the commit before a change), its time to the header on the same
//    node target is measured in the same run, alternating with this build's.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { FIVE_CAPS, NOBODY, setcapPtop, writeTargets } from "../test/live/ptop-harness.ts";
import { REPO_ROOT } from "../test/helpers/runner-bin.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const SECONDS = Number(arg("seconds", "10"));
const REPS = Number(arg("reps", "3"));
const FREQS = arg("freqs", "99,499,999").split(",").map(Number);
const THREADS = cpus().length;

const dir = mkdtempSync(join(tmpdir(), "ptop-unwind-bench-"));
chmodSync(dir, 0o755);
const ptop = setcapPtop(dir);
const hotloop = join(dir, "hotloop");
const cc = Bun.spawnSync(["gcc", "-O2", "-fomit-frame-pointer", "-fno-inline", "-pthread", resolve(REPO_ROOT, "test/fixtures/workloads/hotloop.c"), "-o", hotloop]);
if (cc.exitCode !== 0) throw new Error(cc.stderr.toString());
chmodSync(hotloop, 0o755);
const targets = writeTargets(dir, { targets: [{ workload: "hotloop" }, { workload: "node" }] });

type Mode = "none" | "perf-dwarf" | `ptop-${number}`;
async function rounds(mode: Mode) {
  const work = Bun.spawn([...NOBODY, hotloop, String(THREADS), String(SECONDS)], { stdout: "pipe" });
  await Bun.sleep(100);
  const window = String(SECONDS - 1);
  let tool: ReturnType<typeof Bun.spawn> | undefined;
  if (mode.startsWith("ptop-"))
    tool = Bun.spawn([...NOBODY, ptop, "--targets", targets, "--workload", "hotloop", "--duration", window, "--probes", "cpu", "--frequency", mode.slice(5)], { stdout: "ignore", stderr: "ignore" });
  if (mode === "perf-dwarf")
    tool = Bun.spawn(["perf", "record", "-q", "-F", "99", "--call-graph", "dwarf", "-p", String(work.pid), "-o", join(dir, "perf.data"), "--", "sleep", window], { stdout: "ignore", stderr: "ignore" });
  const out = await new Response(work.stdout).text();
  await work.exited;
  if (tool) await tool.exited;
  const ru = work.resourceUsage();
  const cpu = ru ? (Number(ru.cpuTime.user) + Number(ru.cpuTime.system)) / 1e6 : NaN;
  return Number(out.match(/rounds (\d+)/)?.[1] ?? NaN) / cpu;
}

// --startup-only: part 2 alone (ptop's own cost and start-up on node).
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
if (!process.argv.includes("--startup-only")) {
  const modes: Mode[] = ["none", ...FREQS.map((f) => `ptop-${f}` as Mode), "perf-dwarf"];
  const res = new Map<Mode, number[]>(modes.map((m) => [m, []]));
  for (let r = 0; r < REPS; r++) for (const m of modes) res.get(m)!.push(await rounds(m));
  const base = median(res.get("none")!);
  console.log(`target slowdown, rounds per target CPU-second (${THREADS} threads of FP-less hotloop, ${SECONDS} s, median of ${REPS}):`);
  for (const m of modes) {
    const v = median(res.get(m)!);
    console.log(`  ${m.padEnd(11)} ${v.toFixed(0)}  slowdown ${((1 - v / base) * 100).toFixed(2)}%   (reps: ${res.get(m)!.map((x) => x.toFixed(0)).join(", ")})`);
  }
  console.log(`load average: ${readFileSync("/proc/loadavg", "utf8").trim()}`);
}

// 16 busy node threads.
const script = join(dir, "busy16.js");
writeFileSync(script, `const { Worker, isMainThread } = require("node:worker_threads");
if (isMainThread) { for (let i = 0; i < 15; i++) new Worker(__filename); }
const end = Date.now() + ${(3 * SECONDS + 15) * 1000};
function spin(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i); return s; }
while (Date.now() < end) spin(1e6);
process.exit(0);\n`);
chmodSync(script, 0o644);
const node = Bun.spawn([...NOBODY, "env", "HOME=/tmp", "node", script], { stdout: "ignore", stderr: "ignore", cwd: dir });
await Bun.sleep(3000);

function rssKiB(pid: number): number {
  let total = 0;
  const kids = Bun.spawnSync(["pgrep", "-P", String(pid)]).stdout.toString().split("\n").filter(Boolean).map(Number);
  for (const p of [pid, ...kids]) {
    try {
      total += Number(readFileSync(`/proc/${p}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
    } catch {}
  }
  return total;
}

const BEFORE = arg("before", "");
const ptopBefore = BEFORE ? (() => {
  const bin = join(dir, "ptop-before");
  writeFileSync(bin, readFileSync(BEFORE));
  chmodSync(bin, 0o755);
  if (Bun.spawnSync(["setcap", FIVE_CAPS, bin]).exitCode !== 0) throw new Error("setcap failed on --before");
  return bin;
})() : "";

async function ptopOnNode(window: number, freq: number, bin = ptop) {
  const t0 = performance.now();
  const p = Bun.spawn([...NOBODY, "env", "PTOP_DEBUG=1", bin, "--targets", targets, "--workload", "node", "--duration", String(window), "--probes", "cpu", "--frequency", String(freq)], { stdout: "pipe", stderr: "pipe" });
  const stderr = new Response(p.stderr).text();
  let peak = 0;
  const poll = setInterval(() => (peak = Math.max(peak, rssKiB(p.pid))), 200);
  let headerAt = NaN;
  let text = "";
  const reader = p.stdout.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    if (Number.isNaN(headerAt) && text.includes('"type":"header"')) headerAt = (performance.now() - t0) / 1000;
  }
  await p.exited;
  clearInterval(poll);
  const wall = (performance.now() - t0) / 1000;
  const ru = p.resourceUsage();
  const cpuSec = ru ? (Number(ru.cpuTime.user) + Number(ru.cpuTime.system)) / 1e6 : NaN;
  const samples = Number(text.match(/"samples":\{"cpu":(\d+)/)?.[1] ?? NaN);
  // "ptop: timing: 1.218 s (cpu 0.034 s) window open (header written)"
  const steps = [...(await stderr).matchAll(/ptop: timing: ([\d.]+) s \(cpu ([\d.]+) s\) (.*)/g)].map((m) => `${m[3]} ${m[1]} s (cpu ${m[2]} s)`);
  const incomplete = Number(text.match(/"incomplete":\{"cpu":(\d+)/)?.[1] ?? NaN);
  return { wall, cpuSec, peakMiB: peak / 1024, headerAt, samples, incomplete, steps };
}
for (const freq of [99, FREQS[FREQS.length - 1]!]) {
  const short = await ptopOnNode(SECONDS, freq);
  const long = await ptopOnNode(3 * SECONDS, freq);
  const perSec = (long.cpuSec - short.cpuSec) / (2 * SECONDS);
  console.log(`ptop on 16 busy node threads at ${freq} Hz: ${short.samples} / ${long.samples} cpu samples in ${SECONDS} / ${3 * SECONDS} s (incomplete ${short.incomplete} / ${long.incomplete}); ` +
    `CPU ${short.cpuSec.toFixed(2)} / ${long.cpuSec.toFixed(2)} s -> steady ${(perSec * 100).toFixed(2)}% of one core + ${(short.cpuSec - perSec * SECONDS).toFixed(2)} s fixed; ` +
    `peak RSS (parent + unwinder) ${Math.max(short.peakMiB, long.peakMiB).toFixed(1)} MiB; header (window open) after ${short.headerAt.toFixed(2)} / ${long.headerAt.toFixed(2)} s`);
  for (const run of [short, long]) console.log(`  start-up steps (ptop's clock): ${run.steps.join("; ")}`);
}
if (ptopBefore) {
  const now: number[] = [], before: number[] = [];
  for (let r = 0; r < REPS; r++) {
    before.push((await ptopOnNode(2, 99, ptopBefore)).headerAt);
    now.push((await ptopOnNode(2, 99)).headerAt);
  }
  console.log(`time to header on 16 busy node threads, alternating, median of ${REPS}: this build ${median(now).toFixed(2)} s (${now.map((x) => x.toFixed(2)).join(", ")}), ` +
    `--before ${median(before).toFixed(2)} s (${before.map((x) => x.toFixed(2)).join(", ")})`);
}
node.kill("SIGKILL");
await node.exited;
console.log(`load average: ${readFileSync("/proc/loadavg", "utf8").trim()}`);
rmSync(dir, { recursive: true, force: true });
