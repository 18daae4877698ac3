// Issue 17: a sample the unwinder cannot aggregate is never dropped silently. A test build of ptop
// (make smallagg: the unwinder's aggregate holds at most 8 stacks, never shipped) profiles a busy
// program whose samples fall on far more than 8 distinct stacks; the samples past the bound must be
// counted in the summary's `lost` (and named in a note), every sample taken must be in a stack or
// in `lost`, and the capture's instrumentation must say that more than 5% of the samples are lost.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { instrumentationFromStream } from "../../src/profiler/instrumentation.ts";
import { buildHotloop, cleanup, runPtop, setcapTestBuild, sharedTempDir, stacksOf, whileRunning, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const BOUND = 8; // PTOP_UNWIND_MAX_ENTRIES of build/ptop-smallagg (Makefile)

describeUnless(whyNot([!live, NOT_ROOT]))("ptop: samples the unwinder cannot aggregate are counted (live)", () => {
  let dir = "";
  let ptop = "";
  let workload = "";
  const name = `udrop${process.pid}`.slice(0, 15); // distinctive: parallel runs do not see each other's
  beforeAll(() => {
    dir = sharedTempDir("ptop-drops-");
    ptop = setcapTestBuild(dir, "smallagg");
    workload = buildHotloop(dir, name);
  }, 300_000);
  afterAll(() => cleanup(dir));

  test("past the aggregate's bound: summary.lost and a note count the samples; the instrumentation reports the share", async () => {
    // Six processes: the pid is part of the aggregate's key, and each has three hot leaves (hot_alpha,
    // hot_beta, hot_gamma at 50/30/20%): 18 heavy stacks for 8 places, so about half the samples
    // are past the bound (with three processes, 9 heavy stacks, 11-17% were in two runs).
    await whileRunning([0, 1, 2, 3, 4, 5].map(() => [workload, "1", "30"]), async () => {
      const targets = writeTargets(dir, { targets: [{ workload: name }] });
      const run = await runPtop(ptop, ["--targets", targets, "--workload", name, "--duration", "3", "--warmup", "0", "--probes", "cpu"]);
      expect({ exit: run.exitCode, stderr: run.exitCode ? run.stderr : "" }).toEqual({ exit: PTOP_EXIT.ok, stderr: "" });
      const summary = run.records.at(-1)!;
      if (summary.type !== "summary") throw new Error("no summary record");
      const stacks = stacksOf(run.records, "cpu");
      const inStacks = stacks.reduce((s, x) => s + x.value, 0);
      const note = (summary.notes ?? []).find((n) => n.startsWith("cpu: ") && n.includes("in no stack"));
      const m = note?.match(/^cpu: (\d+) samples are in no stack \(counted as lost\): the unwinder's aggregate was full for (\d+) and out of memory for (\d+)$/);
      const dropped = m ? Number(m[1]) : 0;
      console.log(JSON.stringify({ samples: summary.samples.cpu, lost: summary.lost.cpu, inStacks, dropped, stacks: stacks.length }));
      expect(m).not.toBeNull();
      expect(Number(m![2]) + Number(m![3])).toBe(dropped);
      expect(Number(m![2])).toBeGreaterThan(0); // the bound, not memory, is what dropped them
      // At most BOUND unwound stacks reached the parent (symbolizing can only fold them further).
      expect(stacks.length).toBeLessThanOrEqual(BOUND);
      // Every sample taken is in a stack or counted lost; the unwinder's drops are among the lost.
      const samples = summary.samples.cpu!, lost = summary.lost.cpu!;
      expect(lost).toBeGreaterThanOrEqual(dropped);
      expect(inStacks + dropped).toBeLessThanOrEqual(samples);
      expect(inStacks + lost).toBeGreaterThanOrEqual(samples);
      // The instrumentation says so: far more than 5% of a hot loop's samples are past 8 stacks.
      const instr = instrumentationFromStream(run.stdout, ["cpu"]);
      expect(instr.lost).toEqual([{ axis: "cpu", share: Math.min(1, lost / samples) }]);
      expect(instr.lost![0]!.share).toBeGreaterThan(0.05);
    });
  }, 120_000);
});
