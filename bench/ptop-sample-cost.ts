// µs of ptop CPU per sample (issue 35), this build against an earlier one (--before, e.g. main's
// dist/ptop before the stack deltas) in one paired run, with perf as a peer:
//   bun bench/ptop-sample-cost.ts --before PTOP [--seconds 8] [--reps 3] [--freq 999] [--targets c10,c40,...]
//   (root: setcap, perf)
// Targets, all built the way distributions build (no frame pointers) and run as uid 65534:
//   c10 / c40   unwind-deep.c, -O2 -fomit-frame-pointer, one busy thread, ~10 / ~40 frames
//   c40x16      16 processes of c40 on this machine's CPUs (16 busy target threads)
//   cpp         unwind-templates.cpp (templates, std::function, exceptions), g++ -O2 -fomit-frame-pointer
//   rust        unwind_rust.rs, rustc -C opt-level=3 -C force-frame-pointers=no
//   python      Debian's CPython 3.11, a 30-deep Python recursion over a busy loop
//   node        hot-node.js under node --perf-basic-prof (JIT frames: frame pointers, no CFI)
// Per run: ptop's CPU (parent, unwinder and Python helper, each thread's time on CPU from
// /proc/PID/task/TID/schedstat) between 1.5 s after its header and 2 s before the window's end,
// divided by the samples of that stretch (the capture's sample rate times its length): the steady
// cost per sample, without start-up and the final symbolization; the unwinder child's alone beside
// it (the parent's share is its /proc scans, by time, not by sample). The builds
// alternate within each rep. The peer: `perf record -F FREQ --call-graph dwarf` on c40 and python,
// its recording CPU per sample, and `perf report`'s CPU per sample to unwind what it recorded (the
// work ptop's unwinder does live).
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { NOBODY, setcapPtop, setcapPtopFrom, writeTargets } from "../test/live/ptop-harness.ts";
import { REPO_ROOT } from "../test/helpers/runner-bin.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const SECONDS = Number(arg("seconds", "8"));
const REPS = Number(arg("reps", "3"));
const FREQ = Number(arg("freq", "999"));
const BEFORE = arg("before", "");
const WANT = arg("targets", "c10,c40,c40x16,cpp,rust,python,node").split(",");
const WORKLOADS = resolve(REPO_ROOT, "test/fixtures/workloads");

const dir = mkdtempSync(join(tmpdir(), "ptop-sample-cost-"));
chmodSync(dir, 0o755);
const builds: [string, string][] = [["this build", setcapPtop(dir)]];
if (BEFORE) builds.push(["--before", setcapPtopFrom(BEFORE, join(dir, "before"))]);

function compile(cmd: string[], out: string): string {
  const r = Bun.spawnSync(cmd, { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
  chmodSync(out, 0o755);
  return out;
}
// Names of this benchmark's own: ptop matches workloads machine-wide (comm, exe or argv[0]).
const deep = compile(["gcc", "-O2", "-fomit-frame-pointer", "-pthread", join(WORKLOADS, "unwind-deep.c"), "-o", join(dir, "scdeep")], join(dir, "scdeep"));
symlinkSync("/usr/bin/python3.11", join(dir, "scpython"));
symlinkSync(Bun.which("node")!, join(dir, "scnode"));
const pyScript = join(dir, "pydeep.py");
writeFileSync(pyScript, `import sys, time
end = time.monotonic() + float(sys.argv[1])
def spin():
    s = 0
    for i in range(20000): s += i * i
    return s
def down(n):
    return spin() if n == 0 else down(n - 1) + 1
while time.monotonic() < end: down(30)
`);
chmodSync(pyScript, 0o644);
writeFileSync(join(dir, "hot-node.js"), readFileSync(join(WORKLOADS, "hot-node.js")));
chmodSync(join(dir, "hot-node.js"), 0o644);

type Target = { name: string; workload: string; cmds: (secs: number) => string[][]; cwd?: string };
const TARGETS: Record<string, () => Target> = {
  c10: () => ({ name: "c10", workload: "scdeep", cmds: (s) => [[deep, "cpu", String(s), "6"]] }),
  c40: () => ({ name: "c40", workload: "scdeep", cmds: (s) => [[deep, "cpu", String(s), "36"]] }),
  c40x16: () => ({ name: "c40x16", workload: "scdeep", cmds: (s) => Array.from({ length: 16 }, () => [deep, "cpu", String(s), "36"]) }),
  cpp: () => {
    const bin = compile(["g++", "-O2", "-fomit-frame-pointer", join(WORKLOADS, "unwind-templates.cpp"), "-o", join(dir, "tmplcpp")], join(dir, "tmplcpp"));
    return { name: "cpp", workload: "tmplcpp", cmds: (s) => [[bin, String(s)]] };
  },
  rust: () => {
    const bin = compile(["rustc", "-C", "opt-level=3", "-C", "force-frame-pointers=no", join(WORKLOADS, "unwind_rust.rs"), "-o", join(dir, "rustw")], join(dir, "rustw"));
    return { name: "rust", workload: "rustw", cmds: (s) => [[bin, String(s)]] };
  },
  python: () => ({ name: "python", workload: "scpython", cmds: (s) => [[join(dir, "scpython"), pyScript, String(s)]] }),
  node: () => ({ name: "node", workload: "scnode", cwd: dir, cmds: (s) => [[join(dir, "scnode"), "--perf-basic-prof", join(dir, "hot-node.js"), String(s)]] }),
};

/** CPU seconds of pid's own threads: schedstat's time on CPU, in ns (utime/stime tick in 10 ms, as
 *  much as a thousand samples cost now). */
function cpuOfOne(pid: number): number {
  let ns = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
  } catch {}
  return ns / 1e9;
}

/** [ptop's CPU seconds: parent and children, the unwinder's alone] (the child named ptop; the
 *  Python helper has its own name). */
function cpuOf(pid: number): [number, number] {
  let kids: number[] = [];
  try {
    kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {}
  const unwinder = kids.find((k) => {
    try {
      return readFileSync(`/proc/${k}/comm`, "utf8").trim() === "ptop";
    } catch {
      return false;
    }
  });
  const child = unwinder ? cpuOfOne(unwinder) : NaN;
  return [cpuOfOne(pid) + kids.reduce((a, k) => a + cpuOfOne(k), 0), child];
}

function startTarget(t: Target, secs: number) {
  return t.cmds(secs).map((c) => Bun.spawn([...NOBODY, "env", "HOME=/tmp", ...c], { stdout: "ignore", stderr: "ignore", cwd: t.cwd }));
}

async function ptopRun(bin: string, t: Target) {
  const targets = writeTargets(dir, { targets: [{ workload: t.workload }] }, `targets-${t.name}.json`);
  const work = startTarget(t, SECONDS + 6);
  await Bun.sleep(1500);
  const p = Bun.spawn([...NOBODY, bin, "--targets", targets, "--workload", t.workload, "--duration", String(SECONDS), "--probes", "cpu", "--frequency", String(FREQ)], { stdout: "pipe", stderr: "ignore" });
  let text = "";
  let t1 = NaN, t2 = NaN;
  let c1: [number, number] = [NaN, NaN], c2: [number, number] = [NaN, NaN];
  const reader = p.stdout.getReader();
  const poll = setInterval(() => {
    if (Number.isNaN(t1) || performance.now() < t1) return;
    const c = cpuOf(p.pid);
    if (Number.isNaN(c1[0])) c1 = c, t1 = performance.now();
    else if (performance.now() - t1 < (SECONDS - 2) * 1000) c2 = c, t2 = performance.now();
  }, 100);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    if (Number.isNaN(t1) && text.includes('"type":"header"')) t1 = performance.now() + 1500;
  }
  await p.exited;
  clearInterval(poll);
  for (const w of work) w.kill("SIGKILL");
  await Promise.all(work.map((w) => w.exited));
  const samples = Number(text.match(/"samples":\{"cpu":(\d+)/)?.[1] ?? NaN);
  const measured = Number(text.match(/"measured_sec":([\d.]+)/)?.[1] ?? NaN);
  const incomplete = Number(text.match(/"incomplete":\{"cpu":(\d+)/)?.[1] ?? NaN);
  let frames = 0;
  let weight = 0;
  for (const m of text.matchAll(/"type":"stack","axis":"cpu","frames":\[([\d,]*)\],"value":(\d+)/g)) {
    frames += m[1]!.split(",").length * Number(m[2]);
    weight += Number(m[2]);
  }
  const stretch = (t2 - t1) / 1000;
  const inStretch = stretch * samples / measured;
  const usPerSample = ((c2[0] - c1[0]) / inStretch) * 1e6;
  const unwinderUs = ((c2[1] - c1[1]) / inStretch) * 1e6;
  const cores = (c2[0] - c1[0]) / stretch;
  return { usPerSample, unwinderUs, cores, samples, incomplete, frames: frames / weight, rate: samples / measured };
}

async function perfPeer(t: Target) {
  const work = startTarget(t, SECONDS + 4);
  await Bun.sleep(1000);
  const data = join(dir, `perf-${t.name}.data`);
  const rec = Bun.spawn(["perf", "record", "-q", "-F", String(FREQ), "--call-graph", "dwarf", "-p", work.map((w) => w.pid).join(","), "-o", data, "--", "sleep", String(SECONDS)], { stdout: "ignore", stderr: "ignore" });
  await rec.exited;
  for (const w of work) w.kill("SIGKILL");
  await Promise.all(work.map((w) => w.exited));
  const ru = rec.resourceUsage();
  const recCpu = ru ? (Number(ru.cpuTime.user) + Number(ru.cpuTime.system)) / 1e6 : NaN;
  const stats = Bun.spawnSync(["perf", "report", "-i", data, "--stats"], { stdout: "pipe", stderr: "ignore" }).stdout.toString();
  const samples = Number(stats.match(/SAMPLE events:\s*(\d+)/)?.[1] ?? NaN);
  // The call graphs unwound (perf's libdw/libunwind over the recorded stack copies), as ptop's child does live.
  const rep = Bun.spawn(["perf", "report", "-i", data, "--stdio", "--no-children", "-g", "caller", "--sort", "sym"], { stdout: "ignore", stderr: "ignore" });
  await rep.exited;
  const rru = rep.resourceUsage();
  const repCpu = rru ? (Number(rru.cpuTime.user) + Number(rru.cpuTime.system)) / 1e6 : NaN;
  return { samples, recordUs: (recCpu / samples) * 1e6, reportUs: (repCpu / samples) * 1e6 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`µs of ptop CPU per sample at ${FREQ} Hz, ${SECONDS}-s windows, median of ${REPS} (builds alternating):`);
for (const name of WANT) {
  const t = TARGETS[name]!();
  const res = new Map<string, Awaited<ReturnType<typeof ptopRun>>[]>(builds.map(([label]) => [label, []]));
  for (let r = 0; r < REPS; r++) for (const [label, bin] of builds) res.get(label)!.push(await ptopRun(bin, t));
  const parts = builds.map(([label]) => {
    const runs = res.get(label)!;
    return `${label} ${median(runs.map((x) => x.usPerSample)).toFixed(1)} µs (${runs.map((x) => x.usPerSample.toFixed(1)).join(", ")}; ` +
      `unwinder ${median(runs.map((x) => x.unwinderUs)).toFixed(1)} µs; ${(median(runs.map((x) => x.cores)) * 100).toFixed(2)}% of a core; ` +
      `${median(runs.map((x) => x.rate)).toFixed(0)} samples/s, ${median(runs.map((x) => x.frames)).toFixed(1)} frames, incomplete ${runs.map((x) => x.incomplete).join("/")} of ${runs.map((x) => x.samples).join("/")})`;
  });
  console.log(`  ${name.padEnd(7)} ${parts.join("  |  ")}`);
  if (name === "c40" || name === "python") {
    const p = await perfPeer(t);
    console.log(`  ${"".padEnd(7)} perf record --call-graph dwarf: ${p.recordUs.toFixed(1)} µs of perf CPU per sample to record, perf report ${p.reportUs.toFixed(1)} µs per sample to unwind (${p.samples} samples)`);
  }
}
console.log(`load average: ${readFileSync("/proc/loadavg", "utf8").trim()}; ${navigator.hardwareConcurrency} CPUs`);
rmSync(dir, { recursive: true, force: true });
