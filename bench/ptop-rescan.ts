// ptop's own CPU while it rescans targets with many executable mappings (sym_prepare_process on
// every target process every 250 ms), this build against another (--before PTOP, e.g. main's),
// alternating in the same run.
//   bun bench/ptop-rescan.ts --before PTOP [--seconds 30] [--reps 3] [--procs 4] [--libs 400] [--threads 16] [--probes syscalls]
//   (root: setcap)
// Target: PROCS processes of manymaps.c, each dlopening LIBS copies of a tiny library (one file
// each: LIBS executable mappings, ~4 x LIBS mappings in all) and spinning in THREADS threads
// (16 in all by default, uid 65534). ptop runs `--probes PROBES` for 5 s and for SECONDS: `syscalls` (default)
// takes no sample of threads that make no system call, so what remains is start-up and the
// rescans; `cpu` adds the sampling and unwinding (whose cost follows the samples taken);
// its CPU is user + system of ptop and its waited-for children (the unwinder, the ELF helper), from
// the rusage of its exit.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { FIVE_CAPS, NOBODY, setcapPtop, writeTargets } from "../test/live/ptop-harness.ts";
import { REPO_ROOT } from "../test/helpers/runner-bin.ts";
import { Lines } from "../test/live/line-reader.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const SECONDS = Number(arg("seconds", "30"));
const REPS = Number(arg("reps", "3"));
const PROCS = Number(arg("procs", "4"));
const LIBS = Number(arg("libs", "400"));
const THREADS = Number(arg("threads", "16"));
const BEFORE = arg("before", "");
const PROBES = arg("probes", "syscalls");
if (!BEFORE) throw new Error("--before PTOP: the build to compare against");

const dir = mkdtempSync(join(tmpdir(), "ptop-rescan-bench-"));
chmodSync(dir, 0o755);
const ptop = setcapPtop(dir);
const before = join(dir, "ptop-before");
writeFileSync(before, readFileSync(BEFORE));
chmodSync(before, 0o755);
if (Bun.spawnSync(["setcap", FIVE_CAPS, before]).exitCode !== 0) throw new Error("setcap failed on --before");

const NAME = "manymaps";
const bin = join(dir, NAME);
const build = (cmd: string[]) => {
  const r = Bun.spawnSync(cmd, { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
};
build(["gcc", "-O2", "-pthread", resolve(REPO_ROOT, "test/fixtures/workloads/manymaps.c"), "-o", bin, "-ldl"]);
writeFileSync(join(dir, "lib.c"), "int manymaps_lib(int x) { return x * 3 + 1; }\n");
build(["gcc", "-O2", "-shared", "-fPIC", join(dir, "lib.c"), "-o", join(dir, "lib.so")]);
const libdir = join(dir, "libs");
mkdirSync(libdir);
const libs: string[] = [];
for (let i = 0; i < LIBS; i++) {
  libs.push(join(libdir, `libmm${i}.so`));
  copyFileSync(join(dir, "lib.so"), libs[i]!);
}
chmodSync(libdir, 0o755);
const targets = writeTargets(dir, { targets: [{ workload: NAME }] });

const perProc = Math.max(1, Math.round(THREADS / PROCS));
const runFor = REPS * 2 * (SECONDS + 15) + 30;
const work = Array.from({ length: PROCS }, () => Bun.spawn([...NOBODY, bin, String(perProc), String(runFor), ...libs], { stdout: "pipe", stderr: "inherit" }));
for (const w of work) await new Lines(w.stdout).until(/ready/, 60_000);
await Bun.sleep(2000);
const mapsLines = readFileSync(`/proc/${work[0]!.pid}/maps`, "utf8").split("\n").filter(Boolean);
const execMaps = mapsLines.filter((l) => l.split(" ")[1]?.includes("x")).length;

async function ptopCpu(b: string, seconds: number) {
  const p = Bun.spawn([...NOBODY, b, "--targets", targets, "--workload", NAME, "--duration", String(seconds), "--probes", PROBES], { stdout: "pipe", stderr: "pipe" });
  const [out] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  if (code !== 0) throw new Error(`ptop exited ${code}`);
  const ru = p.resourceUsage()!;
  const samples = Number(out.match(/"samples":\{"[a-z]+":(\d+)/)?.[1] ?? NaN);
  return { cpu: (Number(ru.cpuTime.user) + Number(ru.cpuTime.system)) / 1e6, samples };
}

// Two window lengths: the difference is the steady cost per second of window (the rescans, and
// with `cpu` the sampling), apart from start-up and the report at the end.
const SHORT = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
type Run = { short: { cpu: number; samples: number }; long: { cpu: number; samples: number } };
const now: Run[] = [], old: Run[] = [];
for (let r = 0; r < REPS; r++) {
  old.push({ short: await ptopCpu(before, SHORT), long: await ptopCpu(before, SECONDS) });
  now.push({ short: await ptopCpu(ptop, SHORT), long: await ptopCpu(ptop, SECONDS) });
}
const steady = (x: Run) => (x.long.cpu - x.short.cpu) / (SECONDS - SHORT);
const fmt = (xs: Run[]) => {
  const st = median(xs.map(steady));
  return `${median(xs.map((x) => x.long.cpu)).toFixed(2)} s in the ${SECONDS} s window; steady ${(st * 100).toFixed(2)}% of one core + ` +
    `${median(xs.map((x) => x.short.cpu - steady(x) * SHORT)).toFixed(2)} s fixed (reps ${SHORT} s / ${SECONDS} s: ` +
    `${xs.map((x) => `${x.short.cpu.toFixed(2)}/${x.long.cpu.toFixed(2)} s, ${x.long.samples} samples`).join("; ")})`;
};
console.log(`${new Date().toISOString()}: ptop --probes ${PROBES} on ${PROCS} processes x ${perProc} busy threads, each with ${mapsLines.length} mappings (${execMaps} executable); ptop CPU (parent + children), median of ${REPS}, alternating:`);
console.log(`  before (${BEFORE}): ${fmt(old)}`);
console.log(`  this build: ${fmt(now)}`);
console.log(`load average: ${readFileSync("/proc/loadavg", "utf8").trim()}`);
for (const w of work) w.kill("SIGKILL");
await Promise.all(work.map((w) => w.exited));
rmSync(dir, { recursive: true, force: true });
