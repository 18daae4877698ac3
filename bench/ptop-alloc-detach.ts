// The alloc probe's detach time against the number of target processes, this build against another
// (--before PTOP, e.g. main's), in the same run (issue 29, item 10).
//   bun bench/ptop-alloc-detach.ts [--before PTOP] [--procs 10,100] [--reps 2]   (root: setcap)
// Targets: PROCS copies of /bin/sleep under one name (uid 65534): each maps glibc, whose five
// allocation entry points get uprobes. ptop runs `--probes alloc --duration 2` with PTOP_DEBUG=1;
// the detach is the time between its "window open" and "window closed, probes detached" phases less
// the measured window.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FIVE_CAPS, NOBODY, setcapPtop, writeTargets } from "../test/live/ptop-harness.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const PROCS = arg("procs", "10,100").split(",").map(Number);
const REPS = Number(arg("reps", "2"));
const BEFORE = arg("before", "");

const dir = mkdtempSync(join(tmpdir(), "ptop-alloc-detach-bench-"));
chmodSync(dir, 0o755);
const builds: [string, string][] = [["this", setcapPtop(dir)]];
if (BEFORE) {
  const before = join(dir, "ptop-before");
  writeFileSync(before, readFileSync(BEFORE));
  chmodSync(before, 0o755);
  if (Bun.spawnSync(["setcap", FIVE_CAPS, before]).exitCode !== 0) throw new Error("setcap failed on --before");
  builds.push(["before", before]);
}
mkdirSync(join(dir, "bin"));
chmodSync(join(dir, "bin"), 0o755);
const NAME = "allocdetbench";
copyFileSync("/bin/sleep", join(dir, "bin", NAME));
chmodSync(join(dir, "bin", NAME), 0o755);
const targets = writeTargets(dir, { targets: [{ workload: NAME }] });

async function detachSeconds(ptop: string): Promise<number> {
  const run = Bun.spawn([...NOBODY, "env", "PTOP_DEBUG=1", ptop, "--targets", targets, "--workload", NAME, "--duration", "2", "--probes", "alloc"], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
  if ((await run.exited) !== 0) throw new Error(`ptop failed: ${stderr.slice(-500)}`);
  const measured = Number(stdout.match(/"measured_sec":([0-9.]+)/)?.[1]);
  const at = (phase: string) => Number(stderr.match(new RegExp(`timing: ([0-9.]+) s \\(cpu [0-9.]+ s\\) ${phase}`))?.[1]);
  return at("window closed, probes detached") - at("window open \\(header written\\)") - measured;
}

try {
  for (const n of PROCS) {
    const procs = Array.from({ length: n }, () => Bun.spawn([...NOBODY, join(dir, "bin", NAME), "3600"]));
    await Bun.sleep(500);
    try {
      for (let r = 0; r < REPS; r++)
        for (const [label, bin] of builds) console.log(`procs=${n} build=${label} detach_s=${(await detachSeconds(bin)).toFixed(2)}`);
    } finally {
      for (const p of procs) p.kill("SIGKILL");
      await Promise.all(procs.map((p) => p.exited));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
