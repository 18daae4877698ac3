// ptop's `locks` probe: what it costs a target, contended and uncontended, beside the same
// workload without ptop in the same run.
//   bun bench/ptop-locks-overhead.ts [--seconds 6] [--reps 3]      (root: setcap, tracefs)
// Workload: test/fixtures/workloads/lockwait.c built without frame pointers: "contended", 4
// threads taking one mutex around a critical section ten times their work outside it;
// "handoff", the worst case, two threads passing a baton through two mutexes (nearly every
// operation is a lock wait); "uncontended", the contended work with a mutex per thread. Per rep and mode, interleaved: alone; under ptop --probes locks; under ptop with the
// three other probes; under ptop with all four (the marginal cost of adding locks to the others).
// Figures: operations per wall second and per CPU-second of the target (the BPF programs run on
// the target's time; other load on a shared machine does not), the median of the reps; and the
// lock waits ptop recorded per second.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { NOBODY, setcapPtop, writeTargets } from "../test/live/ptop-harness.ts";
import { REPO_ROOT } from "../test/helpers/runner-bin.ts";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const WINDOW = arg("seconds", 6);
const REPS = arg("reps", 3);

const dir = mkdtempSync(join(tmpdir(), "ptop-locks-bench-"));
chmodSync(dir, 0o755);
const ptop = setcapPtop(dir);
const bin = join(dir, "lockwait");
const cc = Bun.spawnSync(["clang", "-O1", "-fomit-frame-pointer", "-fno-inline", "-fno-optimize-sibling-calls", "-pthread",
  resolve(REPO_ROOT, "test/fixtures/workloads/lockwait.c"), "-o", bin], { stderr: "pipe" });
if (cc.exitCode !== 0) throw new Error(`building lockwait failed: ${cc.stderr.toString()}`);
chmodSync(bin, 0o755);
const targets = writeTargets(dir, { targets: [{ workload: "lockwait" }] });
const hadTracefs = (await Bun.file("/proc/self/mounts").text()).includes(" /sys/kernel/tracing tracefs ");
if (!hadTracefs) Bun.spawnSync(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"]);

type Probes = "none" | "locks" | "cpu,offcpu,syscalls" | "cpu,offcpu,syscalls,locks";
const CONDITIONS: Probes[] = ["none", "locks", "cpu,offcpu,syscalls", "cpu,offcpu,syscalls,locks"];
type Mode = "contended" | "handoff" | "uncontended";
const MODES: Mode[] = ["contended", "handoff", "uncontended"];

/** CPU seconds (user + system) the process has used so far, from /proc/PID/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/**
 * One measurement: the workload runs until killed and prints its operation count every 100 ms;
 * ptop (when asked) starts first, and the interval measured is its window: from its header (written
 * when the window opens) for WINDOW seconds. Without ptop, the same interval after a settle.
 */
async function run(mode: Mode, probes: Probes) {
  const work = Bun.spawn([...NOBODY, bin, mode, "0"], { stdout: "pipe" });
  let ops = 0;
  const reading = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of work.stdout as ReadableStream<Uint8Array>) {
      buf += dec.decode(chunk);
      const lines = buf.split("\n");
      buf = lines.pop()!;
      for (const l of lines) {
        const m = l.match(/^ops (\d+)/);
        if (m) ops = Number(m[1]);
      }
    }
  })();
  let tool: ReturnType<typeof Bun.spawn> | undefined;
  let stream = "";
  await Bun.sleep(500);
  if (probes !== "none") {
    tool = Bun.spawn([...NOBODY, ptop, "--targets", targets, "--workload", "lockwait", "--duration", String(WINDOW + 1), "--probes", probes], { stdout: "pipe", stderr: "ignore" });
    const reader = (tool.stdout as ReadableStream<Uint8Array>).getReader();
    const dec = new TextDecoder();
    while (!stream.includes('"type":"header"')) {
      const { value, done } = await reader.read();
      if (done) break;
      stream += dec.decode(value);
    }
    (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        stream += dec.decode(value);
      }
    })();
  }
  await Bun.sleep(300); // a whole 100 ms tick of the workload inside the window
  const ops0 = ops, cpu0 = cpuSeconds(work.pid), t0 = performance.now();
  await Bun.sleep(WINDOW * 1000);
  const ops1 = ops, cpu1 = cpuSeconds(work.pid), t1 = performance.now();
  if (tool) await tool.exited;
  // ptop's own CPU (its unwinder child included: ptop waits for it), per second of its run
  const tu = tool?.resourceUsage();
  const ptopCpu = tu ? (Number(tu.cpuTime.user) + Number(tu.cpuTime.system)) / 1e6 : NaN;
  work.kill("SIGKILL");
  await work.exited;
  await reading;
  await Bun.sleep(50);
  const summary = stream.split("\n").find((l) => l.startsWith('{"type":"summary"'));
  const s = summary ? (JSON.parse(summary) as { samples: Record<string, number>; lost: Record<string, number>; measured_sec: number }) : undefined;
  const waitsPerSec = s && s.samples.locks !== undefined ? s.samples.locks / s.measured_sec : NaN;
  const lost = s?.lost.locks ?? NaN;
  return { wall: (ops1 - ops0) / ((t1 - t0) / 1000), perCpu: (ops1 - ops0) / (cpu1 - cpu0), waitsPerSec, lost, ptopCpu };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "–");
const rows: string[] = [];
for (const mode of MODES) {
  const res = new Map<Probes, Awaited<ReturnType<typeof run>>[]>(CONDITIONS.map((c) => [c, []]));
  for (let r = 0; r < REPS; r++) for (const c of CONDITIONS) res.get(c)!.push(await run(mode, c));
  const base = res.get("none")!;
  for (const c of CONDITIONS) {
    const xs = res.get(c)!;
    const wall = median(xs.map((x) => x.wall));
    const perCpu = median(xs.map((x) => x.perCpu));
    const slowWall = (1 - wall / median(base.map((x) => x.wall))) * 100;
    const slowCpu = (1 - perCpu / median(base.map((x) => x.perCpu))) * 100;
    const waits = median(xs.map((x) => x.waitsPerSec));
    const lost = median(xs.map((x) => x.lost));
    const ptopCpu = median(xs.map((x) => x.ptopCpu));
    rows.push(`| ${mode} | ${c === "none" ? "no ptop (peer)" : `ptop --probes ${c}`} | ${fmt(wall)} | ${c === "none" ? "–" : slowWall.toFixed(1) + "%"} | ${fmt(perCpu)} | ${c === "none" ? "–" : slowCpu.toFixed(1) + "%"} | ${fmt(waits)} | ${fmt(lost)} | ${Number.isFinite(ptopCpu) ? ptopCpu.toFixed(2) : "–"} |`);
  }
}
console.log(`lockwait, ${WINDOW} s measured inside ptop's window per run, median of ${REPS} interleaved reps, ${new Date().toISOString()}`);
console.log("| workload | condition | ops/s | slowdown (wall) | ops per target CPU-s | slowdown (per CPU-s) | lock waits recorded/s | lock waits lost | ptop CPU-s per run |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
console.log(`load average at the end: ${(await Bun.file("/proc/loadavg").text()).trim()}`);
if (!hadTracefs) Bun.spawnSync(["umount", "/sys/kernel/tracing"]);
rmSync(dir, { recursive: true, force: true });
