// ptop's overhead on a CPU-bound CPython target with Python frames on, against `perf record -F 99
// -g` in the same run.   bun bench/ptop-python-overhead.ts [--seconds 10] [--reps 5] [--procs N] [--freqs 99,199]
//   (root: setcap, perf)
// 1. Rounds of a Python loop per target CPU-second: alone, under ptop (cpu probe at each --freqs, uid
//    65534 with the five file capabilities; each sample walks the Python frame chain in BPF and
//    snapshots the user stack), under perf record -F 99 -g; interleaved repetitions, medians.
// 2. ptop's own CPU (parent and the children it reaps): per second of window in the runs above
//    (start-up included), and split into a fixed part and a steady per-second part from two
//    windows (5 s and 20 s) on one long-running target, whose names must all resolve.
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { NOBODY, setcapPtop, writeTargets } from "../test/live/ptop-harness.ts";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SECONDS = arg("seconds", 10);
const REPS = arg("reps", 5);
// One target process per CPU by default, so that every CPU is busy in every mode: with a single
// target on two CPUs the tool ran on the idle one and "none" had a CPU to itself, and the 5–9%
// both tools then measured (26 Nov) was not their in-context cost (see bench/RESULTS.md).
const PROCS = arg("procs", cpus().length);
const FREQS = (process.argv.includes("--freqs") ? process.argv[process.argv.indexOf("--freqs") + 1]! : "99,199").split(",").map(Number);

const dir = mkdtempSync(join(tmpdir(), "ptop-pybench-"));
chmodSync(dir, 0o755);
const ptop = setcapPtop(dir);
const script = join(dir, "pybench.py");
// Three nested Python functions (a stack of 5 frames), pure interpreter work, one thread.
writeFileSync(script, `import sys, time
def leaf(n):
    s = 0
    for i in range(n):
        s = (s + i) & 0xFFFF
    return s
def mid():
    return leaf(2000)
def top():
    return mid()
end = time.monotonic() + float(sys.argv[1])
rounds = 0
while time.monotonic() < end:
    top()
    rounds += 1
print("rounds", rounds, "cpu", time.process_time())
`);
chmodSync(script, 0o644);
const exe = join(dir, "pybench");
symlinkSync("/usr/bin/python3", exe);
const targets = writeTargets(dir, { targets: [{ workload: "pybench" }] });

type Mode = "none" | "perf" | `ptop-${number}`;
async function run(mode: Mode) {
  const works = Array.from({ length: PROCS }, () => Bun.spawn([...NOBODY, exe, script, String(SECONDS)], { stdout: "pipe" }));
  await Bun.sleep(300);
  const window = String(SECONDS - 2);
  let tool: ReturnType<typeof Bun.spawn> | undefined;
  if (mode.startsWith("ptop-"))
    tool = Bun.spawn([...NOBODY, ptop, "--targets", targets, "--workload", "pybench", "--duration", window, "--frequency", mode.slice(5), "--probes", "cpu"], { stdout: "pipe", stderr: "ignore" });
  if (mode === "perf")
    tool = Bun.spawn(["perf", "record", "-q", "-F", "99", "-g", "-p", works.map((w) => w.pid).join(","), "-o", join(dir, "perf.data"), "--", "sleep", window], { stdout: "ignore", stderr: "ignore" });
  const outs = await Promise.all(works.map((w) => new Response(w.stdout).text()));
  await Promise.all(works.map((w) => w.exited));
  let toolCpu = NaN;
  let pythonFrames = false;
  if (tool) {
    const text = mode.startsWith("ptop-") ? await new Response(tool.stdout as ReadableStream).text() : "";
    await tool.exited;
    const ru = tool.resourceUsage();
    if (ru) toolCpu = (Number(ru.cpuTime.user) + Number(ru.cpuTime.system)) / 1e6 / Number(window);
    pythonFrames = text.includes('"function":"leaf"');
  }
  // Rounds per CPU-second over all target processes (each reports its own process_time()).
  let rounds = 0;
  let cpu = 0;
  for (const out of outs) {
    const m = out.match(/rounds (\d+) cpu ([\d.]+)/);
    rounds += Number(m?.[1]);
    cpu += Number(m?.[2]);
  }
  return { perCpu: rounds / cpu, toolCpu, pythonFrames };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const modes: Mode[] = ["none", ...FREQS.map((f) => `ptop-${f}` as Mode), "perf"];
const res: Record<string, Awaited<ReturnType<typeof run>>[]> = Object.fromEntries(modes.map((m) => [m, []]));
for (let r = 0; r < REPS; r++) for (const mode of modes) res[mode]!.push(await run(mode));
const med = (m: string) => median(res[m]!.map((x) => x.perCpu));
const slow = (m: string) => (1 - med(m) / med("none")) * 100;
const pct = (m: string) => (median(res[m]!.map((x) => x.toolCpu)) * 100).toFixed(2);
console.log(`Python rounds per target CPU-second (${PROCS} target processes, ${SECONDS} s, median of ${REPS}), load average ${(await Bun.file("/proc/loadavg").text()).trim()}:`);
for (const m of modes) console.log(`  ${m.padEnd(9)} ${med(m).toFixed(1).padStart(9)}  slowdown ${slow(m).toFixed(2)}%${m === "none" ? "" : `  tool CPU ${pct(m)}% of a core`}   (reps: ${res[m]!.map((x) => x.perCpu.toFixed(0)).join(", ")})`);
console.log(`Python frames in every ptop capture: ${FREQS.every((f) => res[`ptop-${f}`]!.every((x) => x.pythonFrames))}`);
// Fixed vs steady ptop CPU: two windows on one target that outlives both.
{
  const work = Bun.spawn([...NOBODY, exe, script, "60"], { stdout: "ignore" });
  await Bun.sleep(500);
  const cpuOf = async (window: number) => {
    const tool = Bun.spawn([...NOBODY, ptop, "--targets", targets, "--workload", "pybench", "--duration", String(window), "--frequency", "99", "--probes", "cpu"], { stdout: "pipe", stderr: "ignore" });
    const text = await new Response(tool.stdout).text();
    await tool.exited;
    const ru = tool.resourceUsage()!;
    return { cpu: (Number(ru.cpuTime.user) + Number(ru.cpuTime.system)) / 1e6, names: text.includes('"function":"leaf"') && !text.includes("code object gone") };
  };
  const short = await cpuOf(5);
  const long = await cpuOf(20);
  work.kill("SIGKILL");
  await work.exited;
  const steady = (long.cpu - short.cpu) / 15;
  console.log(`ptop CPU: fixed ${(short.cpu - 5 * steady).toFixed(3)} s per capture (BPF load, start-up, symbolization), steady ${(steady * 100).toFixed(2)}% of a core at 99 Hz on one busy Python thread; Python names resolved in both: ${short.names && long.names}`);
}
console.log(`load average after the run: ${(await Bun.file("/proc/loadavg").text()).trim()}`);
rmSync(dir, { recursive: true, force: true });
