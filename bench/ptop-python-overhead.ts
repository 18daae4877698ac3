// ptop's overhead on CPU-bound CPython targets with Python frames on, against `perf record -F 99
// -g` in the same run; with `--target c`, on a C loop built -O2 without frame pointers (every
// sample unwound from CFI), against `perf record -F 99 --call-graph dwarf` (mode perf-dwarf):
// the figure the default sampling frequency rests on (bench/RESULTS.md, "Default frequency"); with
// `--target node`, on busy Node.js targets (no flag: JS frames from V8's metadata), and with
// `--target node+c` half the targets of each, in the same periods, each kind reported apart; with
// `--target java`, on busy JVMs (no flag: Java frames from the VM's structure tables), and with
// `--target java+c` half JVMs and half C targets, as node+c.
//   bun bench/ptop-python-overhead.ts [--target python|c|java|node|node+c|java+c] [--cycles 12] [--on 6] [--trim 0.5] [--off ON-2·TRIM] [--q 0.9]
//                                     [--settle 0.5] [--procs N] [--modes none,ptop-99,ptop-199,perf] [--skip-stats]   (root)
//   mode baseline-HZ: the ptop binary at $PTOP_BASELINE (an earlier build) at HZ, in the same rotation
//   as ptop-HZ, so that two builds are compared on the same processes in the same minutes.
// 1. Target slowdown, paired on the same processes: one Python target per CPU (every CPU busy in
//    every mode) starts once and reports (time, CPU time, rounds) every 0.1 s. Tool-off periods
//    alternate with tool-on periods — ptop (cpu probe, uid 65534 with the five file capabilities;
//    each sample walks the Python frame chain in BPF and snapshots the user stack) at each
//    frequency, perf record -F 99 -g -p PIDS (perf-nog: without -g, the sampling interrupt with
//    little work in it), and "none" (nothing started: the A/A check of the
//    method) — in a rotating order. Each on period's rounds per target CPU-second, inside the
//    tool's sampling window trimmed by --trim s at both ends, is compared with the two off periods
//    around it; per mode: the median of those per-pair slowdowns, its interquartile range and a
//    bootstrap 90% interval. Separate processes per repetition (the method before 26 Nov) differed
//    by up to ±15% among themselves with no tool at all, which hid any 1% effect.
// 2. The BPF program's own cost per sample (kernel.bpf_stats_enabled, on only for those windows):
//    ns per run × runs per second = its share of the CPUs, a lower bound of ptop's in-context cost
//    (the perf-event interrupt around it is not counted) and a cross-check of 1.
// 3. ptop's own CPU: per second of window (start-up included) in 1, and split into a fixed part and
//    a steady per-second part from two windows (5 s and 20 s) on the same targets.
import { mkdtempSync, chmodSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { NOBODY, setcapPtop, setcapPtopFrom, writeTargets } from "../test/live/ptop-harness.ts";
import { monotonicNow } from "./monotonic-clock.ts";
import { progressBetween, readLines, startPythonTargets } from "./python-progress-targets.ts";
import { startCTargets } from "./c-progress-targets.ts";
import { startJavaTargets } from "./java-progress-targets.ts";
import { startNodeTargets } from "./node-progress-targets.ts";
import type { ProgressTargets } from "./python-progress-targets.ts";
import { quantile, summarize } from "./paired-ratio-stats.ts";
import { enableBpfStats, progName, progStats } from "./bpf-prog-stats.ts";

const argv = process.argv;
const arg = (name: string, dflt: number) => {
  const i = argv.indexOf(`--${name}`);
  return i > 0 ? Number(argv[i + 1]) : dflt;
};
const CYCLES = arg("cycles", 12);
const ON = arg("on", 6);
const TRIM = arg("trim", 0.5);
// Off periods as long as the trimmed on windows: the upper quantile of fewer 0.1-s speeds sits
// lower, so unequal lengths bias the comparison (an A/A run with 3 s on, 4 s off: +0.4%).
const OFF = arg("off", ON - 2 * TRIM);
const PROCS = arg("procs", cpus().length);
const STEADY_Q = arg("q", 0.9);
const SETTLE = arg("settle", 0.5); // seconds from a tool's exit to the next off period
type Mode = "none" | "perf" | "perf-nog" | "perf-dwarf" | `ptop-${number}` | `baseline-${number}`;
const MODES = (argv.includes("--modes") ? argv[argv.indexOf("--modes") + 1]! : "none,ptop-99,ptop-199,perf").split(",") as Mode[];
for (const m of MODES) if (!/^(none|perf|perf-nog|perf-dwarf|ptop-\d+|baseline-\d+)$/.test(m)) throw new Error(`--modes: unknown mode "${m}" (none, perf, perf-nog, perf-dwarf, ptop-HZ, baseline-HZ)`);
if (MODES.some((m) => m.startsWith("baseline-")) && !process.env.PTOP_BASELINE) throw new Error("--modes baseline-HZ: set PTOP_BASELINE to the earlier ptop binary");
const TARGET = argv.includes("--target") ? argv[argv.indexOf("--target") + 1]! : "python";
if (!["python", "c", "java", "node", "node+c", "java+c"].includes(TARGET)) throw new Error(`--target: "${TARGET}" is not python, c, java, node, node+c or java+c`);
const TARGET_DESC = { c: "C targets (-O2, no frame pointers", python: "Python targets (Debian python3", java: "Java targets (Debian's OpenJDK 17, no flag", node: "Node.js targets (/usr/bin/node, no flag", "node+c": "targets, half Node.js (no flag) and half C (-O2, no frame pointers", "java+c": "targets, half JVMs (Debian's OpenJDK 17, no flag) and half C (-O2, no frame pointers" }[TARGET];

const NAME = "pyovhpair"; // distinctive: ptop finds its targets by name machine-wide
const dir = mkdtempSync(join(tmpdir(), "ptop-pypair-"));
chmodSync(dir, 0o755);
const ptop = setcapPtop(dir);
const baselinePtop = process.env.PTOP_BASELINE ? setcapPtopFrom(process.env.PTOP_BASELINE, join(dir, "baseline")) : "";
const targetsFile = writeTargets(dir, { targets: [{ workload: NAME }] });
const loadavg = async () => (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
const loadBefore = await loadavg();
const started = new Date();
const lifetime = CYCLES * MODES.length * (ON + OFF + 10) + 200;
/** The targets, and which of them each reported kind is (one kind but with node+c and java+c). */
function startTargets(): { targets: ProgressTargets; kinds: Array<{ kind: string; idx: number[] }> } {
  const starts = { c: startCTargets, python: startPythonTargets, java: startJavaTargets, node: startNodeTargets };
  if (!TARGET.endsWith("+c")) {
    const start = starts[TARGET as keyof typeof starts];
    return { targets: start(dir, NAME, PROCS, lifetime), kinds: [{ kind: TARGET, idx: [...Array(PROCS).keys()] }] };
  }
  const kind = TARGET.slice(0, -2) as "node" | "java";
  const nRt = Math.max(1, Math.floor(PROCS / 2)), nC = Math.max(1, PROCS - nRt);
  const rt = starts[kind](dir, NAME, nRt, lifetime), c = startCTargets(dir, NAME, nC, lifetime);
  const targets = { pids: [...rt.pids, ...c.pids], progress: [...rt.progress, ...c.progress], stop: async () => void (await Promise.all([rt.stop(), c.stop()])) };
  return { targets, kinds: [{ kind, idx: [...Array(nRt).keys()] }, { kind: "c", idx: [...Array(nC).keys()].map((i) => nRt + i) }] };
}
const { targets, kinds: KINDS } = startTargets();
/** Those targets alone (their progress), for a kind's own figures. */
const only = (idx: number[]): ProgressTargets => ({ pids: idx.map((i) => targets.pids[i]!), progress: idx.map((i) => targets.progress[i]!), stop: targets.stop });
await Bun.sleep(TARGET.startsWith("java") ? 10000 : 2000); // the interpreters past start-up (the JVMs past their JIT's work)

/** Starts ptop; resolves `open` at the monotonic time its header (written at window open) arrives. */
function startPtop(freq: number, duration: number, bin = ptop) {
  const tool = Bun.spawn([...NOBODY, bin, "--targets", targetsFile, "--workload", NAME, "--duration", String(duration), "--frequency", String(freq), "--probes", "cpu"], { stdout: "pipe", stderr: "pipe" });
  let text = "";
  let markOpen: (t: number) => void = () => {};
  const open = new Promise<number>((resolve) => (markOpen = resolve));
  const read = readLines(tool.stdout, (line) => {
    if (text === "") markOpen(monotonicNow());
    text += line + "\n";
  });
  const stderr = new Response(tool.stderr).text();
  const done = (async () => {
    await read;
    const code = await tool.exited;
    markOpen(NaN); // no header at all: the run failed
    if (code !== 0) throw new Error(`ptop exited ${code}: ${await stderr}`);
    return { text, cpu: cpuOf(tool) };
  })();
  return { pid: tool.pid, open, done };
}

const cpuOf = (p: ReturnType<typeof Bun.spawn>) => {
  const ru = p.resourceUsage()!;
  return (Number(ru.cpuTime.user) + Number(ru.cpuTime.system)) / 1e6;
};

/** The functions each capture must name: the C and Python targets' leaf(), the Node.js targets' applyDiscounts(). */
const NAMED = [...new Set(KINDS.map(({ kind }) => (kind === "node" ? "applyDiscounts" : kind === "java" ? "JavaProgress.leaf" : "leaf")))];

interface OnPeriod { a: number; b: number; toolCpuPerSec: number; leafNamed: boolean }

async function onPeriod(mode: Mode): Promise<OnPeriod> {
  if (mode === "none") {
    const a = monotonicNow() + TRIM;
    await Bun.sleep(ON * 1000);
    return { a, b: monotonicNow() - TRIM, toolCpuPerSec: NaN, leafNamed: false };
  }
  if (mode === "perf" || mode === "perf-nog" || mode === "perf-dwarf") {
    // perf attaches within tens of ms on a quiet host; its window is taken from 1 s after the
    // start to --trim s before the SIGINT that ends it.
    const t0 = monotonicNow();
    const graph = { perf: ["-g"], "perf-nog": [], "perf-dwarf": ["--call-graph", "dwarf"] }[mode];
    const tool = Bun.spawn(["perf", "record", "-q", "-F", "99", ...graph, "-p", targets.pids.join(","), "-o", join(dir, "perf.data")], { stdout: "ignore", stderr: "ignore" });
    await Bun.sleep((ON + 0.5) * 1000);
    const end = monotonicNow();
    tool.kill("SIGINT");
    await tool.exited;
    return { a: t0 + 1, b: end - TRIM, toolCpuPerSec: cpuOf(tool) / (end - t0), leafNamed: false };
  }
  const baseline = mode.startsWith("baseline-");
  const run = startPtop(Number(mode.slice(baseline ? 9 : 5)), ON, baseline ? baselinePtop : ptop);
  const open = await run.open;
  const { text, cpu } = await run.done;
  return { a: open + TRIM, b: open + ON - TRIM, toolCpuPerSec: cpu / ON, leafNamed: NAMED.every((f) => text.includes(`"function":"${f}"`)) };
}

/** Nothing but the targets runs: from --settle s after the previous tool exited, OFF seconds. */
async function offPeriod() {
  await Bun.sleep(SETTLE * 1000);
  const a = monotonicNow();
  await Bun.sleep(OFF * 1000);
  return { a, b: monotonicNow() };
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
// Rotating order, reversed every other cycle, so that no mode always follows the same one.
const pairs: Array<{ mode: Mode; kind: string; slowdown: number; steadySlowdown: number; steadyAt: (q: number) => number; on: OnPeriod; share: number }> = [];
const offRates: number[] = [];
let before = await offPeriod();
offRates.push(progressBetween(targets, before.a, before.b).perCpu);
for (let c = 0; c < CYCLES; c++) {
  const order = MODES.map((_, i) => MODES[(i + c) % MODES.length]!);
  if (c % 2) order.reverse();
  for (const mode of order) {
    const on = await onPeriod(mode);
    const after = await offPeriod();
    offRates.push(progressBetween(targets, after.a, after.b).perCpu);
    for (const { kind, idx } of KINDS) {
      const these = only(idx);
      const inside = progressBetween(these, on.a, on.b);
      const pre = progressBetween(these, before.a, before.b), post = progressBetween(these, after.a, after.b);
      const offRate = (pre.rounds + post.rounds) / (pre.cpu + post.cpu);
      // Per target: its steady speed in the window against the mean of its own two off periods.
      const steadyAt = (q: number) => mean(inside.speeds.map((s, i) => (1 - quantile(s, q) / ((quantile(pre.speeds[i]!, q) + quantile(post.speeds[i]!, q)) / 2)) * 100));
      pairs.push({ mode, kind, slowdown: (1 - inside.perCpu / offRate) * 100, steadySlowdown: steadyAt(STEADY_Q), steadyAt, on, share: inside.cpu / inside.wall });
      const last = pairs[pairs.length - 1]!;
      console.error(`cycle ${c + 1}/${CYCLES} ${mode} (${kind}): steady ${last.steadySlowdown.toFixed(2)}%, whole period ${last.slowdown.toFixed(2)}%, load ${await loadavg()}`);
    }
    before = after;
  }
}
/** Each mode on each kind of target: the rows reported. */
const ROWS = MODES.flatMap((mode) => KINDS.map(({ kind }) => ({ mode, kind, label: KINDS.length > 1 ? `${mode} (${kind})` : mode })));
const pairsOf = (r: { mode: Mode; kind: string }) => pairs.filter((p) => p.mode === r.mode && p.kind === r.kind);
const loadAfter1 = await loadavg();

const f2 = (x: number) => x.toFixed(2);
const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { stdout: "pipe" }).stdout.toString().trim();
console.log(`${started.toISOString()} commit ${commit}; ${PROCS} ${TARGET_DESC}, uid 65534), ${CYCLES} cycles of ${MODES.join(", ")}; on window ${ON} s trimmed ${TRIM} s at both ends, off ${OFF} s from ${SETTLE} s after the tool's exit; load average before ${loadBefore}, after part 1 ${loadAfter1}`);
console.log(`off-period rounds per target CPU-second: min ${Math.min(...offRates).toFixed(0)}, max ${Math.max(...offRates).toFixed(0)} (${offRates.length} periods)`);
console.log(`steady speed = the ${STEADY_Q} quantile of each target's 0.1-s speeds in the period; whole period = all rounds ÷ all CPU seconds`);
console.log("| mode | pairs | steady speed: slowdown median | IQR | bootstrap 90% interval | whole period: slowdown median | IQR | bootstrap 90% interval | tool CPU per window second (start-up included) | targets' share of their CPUs |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
const cells = (xs: number[]) => {
  const s = summarize(xs);
  return `${f2(s.median)}% | ${f2(s.q1)} … ${f2(s.q3)} | ${f2(s.ci[0])} … ${f2(s.ci[1])}`;
};
for (const row of ROWS) {
  const ps = pairsOf(row);
  const tool = row.mode === "none" ? "—" : `${f2(summarize(ps.map((p) => p.on.toolCpuPerSec * 100)).median)}% of a core`;
  console.log(`| ${row.label} | ${ps.length} | ${cells(ps.map((p) => p.steadySlowdown))} | ${cells(ps.map((p) => p.slowdown))} | ${tool} | ${f2(summarize(ps.map((p) => p.share * 100)).median)}% |`);
}
const ptopModes = MODES.filter((m) => m.startsWith("ptop-"));
if (ptopModes.length) console.log(`${NAMED.join(" and ")} named in every ptop capture (Python: a Python frame; Node.js: a JS frame): ${pairs.filter((p) => /^(ptop|baseline)-/.test(p.mode)).every((p) => p.on.leafNamed)}`);
// How the choice of quantile for the steady speed affects each mode (the A/A row says which is tightest).
for (const q of [0.5, 0.75, 0.9])
  console.log(`steady speed at quantile ${q}: ${ROWS.map((row) => {
    const s = summarize(pairsOf(row).map((p) => p.steadyAt(q)));
    return `${row.label} ${f2(s.median)}% (IQR ${f2(s.q1)} … ${f2(s.q3)}, 90% ${f2(s.ci[0])} … ${f2(s.ci[1])})`;
  }).join("; ")}`);
for (const key of ["steadySlowdown", "slowdown"] as const)
  console.log(`per-pair slowdowns (%), ${key === "slowdown" ? "whole period" : "steady speed"}: ${ROWS.map((row) => `${row.label} [${pairsOf(row).map((p) => f2(p[key])).join(", ")}]`).join("; ")}`);

// 2. The BPF program's cost per run, with the kernel's statistics on only for these windows.
if (!argv.includes("--skip-stats")) {
  for (const freq of ptopModes.map((m) => Number(m.slice(5)))) {
    const restore = enableBpfStats();
    try {
      const window = 8;
      const run = startPtop(freq, window);
      const open = await run.open;
      await Bun.sleep(TRIM * 1000);
      const m0 = monotonicNow(), s0 = progStats(run.pid);
      await Bun.sleep((open + window - TRIM - monotonicNow()) * 1000);
      const m1 = monotonicNow(), s1 = progStats(run.pid);
      const names = new Map([...s1.keys()].map((id) => [id, progName(id)])); // while ptop holds them
      await run.done;
      const cpu = progressBetween(targets, m0, m1).cpu;
      for (const [id, end] of s1) {
        const start = s0.get(id);
        if (!start || end.runCnt === start.runCnt) continue;
        const runs = end.runCnt - start.runCnt, ns = end.runTimeNs - start.runTimeNs;
        // ptop's cpu-clock events are per CPU: they fire `freq` times per CPU-second whichever task
        // runs, so ns per run × runs per CPU-second is the program's share of a busy target's CPU.
        const perCpuSecond = runs / (m1 - m0) / cpus().length;
        console.log(`bpf_stats, ptop at ${freq} Hz, program ${names.get(id)} (type ${end.type}): ${runs} runs in ${f2(m1 - m0)} s = ${f2(perCpuSecond)} per CPU-second, ${(ns / runs).toFixed(0)} ns per run = ${((ns / runs) * perCpuSecond / 1e7).toFixed(3)}% of each CPU (the targets had ${f2((cpu / (m1 - m0) / PROCS) * 100)}% of theirs)`);
      }
    } finally {
      restore();
    }
  }
}

// 3. Fixed vs steady ptop CPU: two windows on the same targets.
if (ptopModes.length) {
  const cpuOfWindow = async (window: number) => {
    const run = startPtop(99, window);
    const { text, cpu } = await run.done;
    return { cpu, names: NAMED.every((f) => text.includes(`"function":"${f}"`)) && !text.includes("code object gone") };
  };
  const short = await cpuOfWindow(5);
  const long = await cpuOfWindow(20);
  const steady = (long.cpu - short.cpu) / 15;
  console.log(`ptop CPU: fixed ${(short.cpu - 5 * steady).toFixed(3)} s per capture (BPF load, start-up, symbolization), steady ${f2(steady * 100)}% of a core at 99 Hz on ${PROCS} busy ${TARGET} threads; leaf() named in both: ${short.names && long.names}`);
}
await targets.stop();
console.log(`load average at the end: ${await loadavg()}`);
rmSync(dir, { recursive: true, force: true });
