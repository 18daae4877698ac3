// The stream's size is bounded by construction, whatever the frequency (native/ptop/src/out/output.h,
// PTOP_STREAM_BUDGET): every profile limit of the system (src/protocol/profile-limits.ts) rests on it.
// A test build of ptop (make smallstream: a budget of 2,560 bytes, never shipped) profiles six busy
// processes, far more stacks than fit: everything before the summary stays within the budget, the
// stacks that are in went in largest first, every frame a stack uses is defined before it (witness
// reads the stream), and what was left out is counted as lost and named in a note; process records
// past the budget are counted in a note too.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { parseStream as witnessParse } from "../../src/witness/stream.ts";
import { axisTotal } from "../../src/witness/model.ts";
import { buildHotloop, cleanup, runPtop, setcapTestBuild, sharedTempDir, stacksOf, whileRunning, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const BUDGET = 2560; // PTOP_STREAM_BUDGET of build/ptop-smallstream (Makefile)

describeUnless(whyNot([!live, NOT_ROOT]))("ptop: the stream stays within its budget (live)", () => {
  let dir = "";
  let ptop = "";
  let workload = "";
  const name = `sbud${process.pid}`.slice(0, 15);
  beforeAll(() => {
    dir = sharedTempDir("ptop-budget-");
    ptop = setcapTestBuild(dir, "smallstream");
    workload = buildHotloop(dir, name);
  }, 300_000);
  afterAll(() => cleanup(dir));

  test("past the budget: the largest stacks are in, the rest counted as lost and named", async () => {
    // Six processes with three hot leaves each: the pid is part of a stack's identity, so at least
    // 18 heavy stacks, plus their kernel variants, for ~1 KiB left after the header and processes.
    await whileRunning([0, 1, 2, 3, 4, 5].map(() => [workload, "1", "30"]), async () => {
      const targets = writeTargets(dir, { targets: [{ workload: name }] });
      const run = await runPtop(ptop, ["--targets", targets, "--workload", name, "--duration", "3", "--warmup", "0", "--probes", "cpu,syscalls"]);
      expect({ exit: run.exitCode, stderr: run.exitCode ? run.stderr : "" }).toEqual({ exit: PTOP_EXIT.ok, stderr: "" });
      const lines = run.stdout.split("\n").filter((l) => l.length > 0);
      const beforeSummary = lines.slice(0, -1).reduce((s, l) => s + Buffer.byteLength(l) + 1, 0);
      const summary = run.records.at(-1)!;
      if (summary.type !== "summary") throw new Error("no summary record");
      const stacks = stacksOf(run.records, "cpu");
      const inStacks = stacks.reduce((s, x) => s + x.value, 0);
      const re = /^cpu: (\d+) stacks holding (\d+) of the axis's value are not in the stream \(counted as lost\): it reached ptop's limit of 2560 bytes, and stacks went in largest first$/;
      const m = (summary.notes ?? []).map((n) => n.match(re)).find((x) => x !== null);
      console.log(JSON.stringify({ bytes: beforeSummary, stacks: stacks.length, inStacks, samples: summary.samples.cpu, lost: summary.lost.cpu, note: m?.[0] }));
      expect(beforeSummary).toBeLessThanOrEqual(BUDGET);
      expect(m).toBeTruthy();
      const leftStacks = Number(m![1]), leftValue = Number(m![2]);
      expect(leftStacks).toBeGreaterThan(0);
      expect(leftValue).toBeGreaterThan(0);
      // Largest first: the values of the stacks written never rise.
      const values = stacks.map((s) => s.value);
      expect(values).toEqual([...values].sort((a, b) => b - a));
      // What is left out is counted, not silently dropped: every sample is in a stack or lost.
      const samples = summary.samples.cpu!, lost = summary.lost.cpu!;
      expect(lost).toBeGreaterThanOrEqual(leftValue);
      expect(inStacks + leftValue).toBeLessThanOrEqual(samples);
      expect(inStacks + lost).toBeGreaterThanOrEqual(samples);
      // Frames are written just before the first stack that uses them: witness reads the stream whole.
      const capture = witnessParse(run.stdout, "budget");
      expect(axisTotal(capture.axes.cpu!)).toBe(inStacks);
    });
  }, 120_000);

  test("past the budget already with the process records: the rest are counted in a note, the stream stays readable", async () => {
    // 24 processes: ~24 × 110 bytes of process records beside the header pass 2,560 bytes.
    const count = 24;
    await whileRunning(Array.from({ length: count }, () => [workload, "1", "30"]), async () => {
      const targets = writeTargets(dir, { targets: [{ workload: name }] });
      const run = await runPtop(ptop, ["--targets", targets, "--workload", name, "--duration", "1", "--warmup", "0", "--probes", "cpu"]);
      expect({ exit: run.exitCode, stderr: run.exitCode ? run.stderr : "" }).toEqual({ exit: PTOP_EXIT.ok, stderr: "" });
      const lines = run.stdout.split("\n").filter((l) => l.length > 0);
      expect(lines.slice(0, -1).reduce((s, l) => s + Buffer.byteLength(l) + 1, 0)).toBeLessThanOrEqual(BUDGET);
      const summary = run.records.at(-1)!;
      if (summary.type !== "summary") throw new Error("no summary record");
      const written = run.records.filter((r) => r.type === "process").length;
      const m = (summary.notes ?? []).map((n) => n.match(/^(\d+) target processes have no process record: the stream reached ptop's limit of 2560 bytes$/)).find((x) => x !== null);
      console.log(JSON.stringify({ written, note: m?.[0] }));
      expect(m).toBeTruthy();
      expect(written + Number(m![1])).toBe(count);
      witnessParse(run.stdout, "budget-processes");
    });
  }, 120_000);
});
