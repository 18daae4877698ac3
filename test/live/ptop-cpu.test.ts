// ptop's cpu probe on a real kernel: a C workload with known hot functions, run as a non-root
// user, captured by a non-root parent through ptop's five file capabilities, agrees with
// `perf record -F 99 -g` measuring the same process at the same time.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { buildHotloop, cleanup, runPtop, runPtopBeside, setcapPtop, sharedTempDir, sleep, spawnAsNobody, stacksOf, writeTargets } from "./ptop-harness.ts";
import { HOT, HOT_SHARES, expectHotShares, expectSigtermPartial, keptSamples } from "./ptop-checks.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();

/** Leaf-symbol shares from `perf report`, over all samples of the recording, and the sample count. */
function perfShares(data: string): { shares: Map<string, number>; samples: number } {
  const r = Bun.spawnSync(
    ["perf", "report", "--stdio", "-n", "--no-children", "--sort", "symbol", "-g", "none", "--percent-limit", "0", "-i", data],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (r.exitCode !== 0) throw new Error(`perf report failed: ${r.stderr.toString()}`);
  const shares = new Map<string, number>();
  let samples = 0;
  for (const line of r.stdout.toString().split("\n")) {
    const m = line.match(/^\s+([\d.]+)%\s+(\d+)\s+\[[.k]\]\s+(\S+)/);
    if (!m) continue;
    shares.set(m[3]!, (shares.get(m[3]!) ?? 0) + Number(m[1]) / 100);
    samples += Number(m[2]);
  }
  return { shares, samples };
}

/**
 * Agreement bound between two independent 99 Hz samplings of the same execution: 3 percentage
 * points, widened only when the machine is so contended that the target got too few samples for
 * 3 points to be three standard errors of the difference (with the ~5000 samples of an idle
 * 2-CPU machine the bound is 3 points).
 */
function tolerance(p: number, n1: number, n2: number): number {
  const se = Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2));
  return Math.max(0.03, 3 * se);
}

describeUnless(whyNot([!live, NOT_ROOT]))("ptop cpu probe (live)", () => {
  let dir = "";
  let ptop = "";
  let hotloop = "";
  let targets = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-cpu-");
    ptop = setcapPtop(dir);
    hotloop = buildHotloop(dir);
    targets = writeTargets(dir, { targets: [{ workload: "hotloop" }] });
  });
  afterAll(() => cleanup(dir));

  test("function shares agree with perf record -F 99 -g within 3 percentage points", async () => {
    const work = spawnAsNobody([hotloop, "2", "45"]);
    try {
      await sleep(500);
      const perfData = join(dir, "perf.data");
      // perf starts when ptop's window opens (its header), so that both measure the same 25 s.
      const recorder = ["perf", "record", "-q", "-F", "99", "-g", "-p", String(work.pid), "-o", perfData, "--", "sleep", "25"];
      const run = await runPtopBeside(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "25", "--probes", "cpu"], recorder);
      expect(run.peerExit).toBe(0);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);

      const procs = run.records.filter((r) => r.type === "process");
      expect(procs.map((p) => p.type === "process" && p.pid)).toContain(work.pid);
      const summary = run.records.at(-1)!;
      expect(summary.type).toBe("summary");
      if (summary.type !== "summary") return;
      expect(summary.partial).toBe(false);
      // 2 busy threads at 99 Hz for 25 s: up to 4950 samples, fewer when other work shares the CPUs.
      expect(summary.samples.cpu).toBeGreaterThan(500);

      const perf = perfShares(perfData);
      const nOurs = keptSamples(summary);
      // ptop sees the shares the workload is built to have (5:3:2) and whole stacks...
      const ours = expectHotShares(run.records, 500);
      console.log(`samples ptop ${nOurs} perf ${perf.samples}; ` +
        HOT.map((fn) => `${fn} ptop ${((ours.get(fn) ?? 0) * 100).toFixed(1)}% perf ${((perf.shares.get(fn) ?? 0) * 100).toFixed(1)}%`).join(", "));
      // ...and agrees with perf measuring the same process at the same time.
      expect(perf.samples).toBeGreaterThan(500);
      HOT.forEach((fn, i) => {
        const a = ours.get(fn) ?? 0;
        const b = perf.shares.get(fn) ?? 0;
        const tol = tolerance(HOT_SHARES[i]!, nOurs, perf.samples);
        expect({ fn, agree: Math.abs(a - b) <= tol, a, b, tol }).toEqual({ fn, agree: true, a, b, tol });
      });
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }, 60_000);

  test("a process that starts during the window is picked up", async () => {
    const first = spawnAsNobody([hotloop, "1", "12"]);
    let second: ReturnType<typeof spawnAsNobody> | undefined;
    try {
      await sleep(300);
      const capture = runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "5", "--probes", "cpu"]);
      await sleep(1500);
      second = spawnAsNobody([hotloop, "1", "10"]);
      const run = await capture;
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const pids = run.records.flatMap((r) => (r.type === "process" ? [r.pid] : []));
      expect(pids).toContain(first.pid);
      expect(pids).toContain(second.pid);
      const sampledPids = new Set(stacksOf(run.records, "cpu").map((s) => s.pid));
      expect(sampledPids.has(second.pid)).toBe(true);
    } finally {
      first.kill("SIGTERM");
      second?.kill("SIGTERM");
      await Promise.all([first.exited, second?.exited]);
    }
  }, 60_000);

  test("SIGTERM stops the window: what was measured is emitted, partial, exit 6", async () => {
    const work = spawnAsNobody([hotloop, "1", "20"]);
    try {
      await sleep(300);
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "30", "--warmup", "1", "--probes", "cpu"], {
        signalAfterHeaderMs: 2500,
      });
      // The signal comes 2.5 s into the 30 s window (timed from the header ptop writes when the
      // window opens, so a slow start on a loaded host does not eat it); the 1 s warmup is not
      // measured: at most the header's frequency in samples per second of the window for the one busy thread (samples of
      // the warmup would push the count past it).
      expectSigtermPartial(run, 1.5, 4);
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }, 60_000);

  test("warmup is discarded: a process busy only during the warmup contributes no samples", async () => {
    const work = spawnAsNobody([hotloop, "1", "2"]); // busy for 2 s, then exits
    try {
      await sleep(200);
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--warmup", "3", "--duration", "1", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const header = run.records[0]!;
      if (header.type !== "header") throw new Error("no header");
      expect(header.warmup_sec).toBe(3);
      expect(run.records.some((r) => r.type === "process" && r.pid === work.pid)).toBe(true);
      const summary = run.records.at(-1)!;
      if (summary.type !== "summary") throw new Error("no summary");
      expect(summary.samples.cpu).toBe(0);
      expect(stacksOf(run.records, "cpu")).toEqual([]);
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }, 30_000);
});
