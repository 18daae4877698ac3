// Samples are never dropped silently (issue 35): a test build of ptop (make smallring: a 16 KiB ring
// buffer to the unwinder, never shipped; a full snapshot does not even fit) profiles busy processes at
// 999 Hz, so most snapshots find the ring buffer full. The summary counts them in `lost`, a note says
// how many and why, and that this loss is biased against deep stacks; the Profiler's instrumentation
// (what the capture record carries) holds the note and the lost share.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { instrumentationFromStream } from "../../src/profiler/instrumentation.ts";
import { buildHotloop, cleanup, runPtop, setcapTestBuild, sharedTempDir, stacksOf, whileRunning, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();

describeUnless(whyNot([!live, NOT_ROOT]))("ptop: samples lost to a full ring buffer are counted and named (live)", () => {
  let dir = "";
  let ptop = "";
  let workload = "";
  const name = `rbl${process.pid}`.slice(0, 15);
  beforeAll(() => {
    dir = sharedTempDir("ptop-ringbuf-");
    ptop = setcapTestBuild(dir, "smallring");
    workload = buildHotloop(dir, name);
  }, 300_000);
  afterAll(() => cleanup(dir));

  test("the note states the count, the cause and the bias; the instrumentation carries it", async () => {
    await whileRunning([[workload, "2", "30"], [workload, "2", "30"]], async () => {
      const targets = writeTargets(dir, { targets: [{ workload: name }] });
      const run = await runPtop(ptop, ["--targets", targets, "--workload", name, "--duration", "2", "--warmup", "0",
        "--frequency", "999", "--probes", "cpu"]);
      expect({ exit: run.exitCode, stderr: run.exitCode ? run.stderr : "" }).toEqual({ exit: PTOP_EXIT.ok, stderr: "" });
      const summary = run.records.at(-1)!;
      if (summary.type !== "summary") throw new Error("no summary record");
      const samples = summary.samples.cpu!, lost = summary.lost.cpu!;
      const re = /^cpu: (\d+) of (\d+) samples \((\d+\.\d)%\) were lost in the kernel \(counted in summary\.lost\): (\d+) found the ring buffer to the unwinder full: a full ring buffer refuses the largest snapshots first, so samples of deep stacks are under-counted and the shares lean toward shallow stacks/;
      const note = (summary.notes ?? []).find((n) => re.test(n));
      const m = note?.match(re);
      const inStacks = stacksOf(run.records, "cpu").reduce((s, x) => s + x.value, 0);
      console.log(JSON.stringify({ samples, lost, inStacks, note }));
      expect(m).toBeTruthy();
      // Nothing else loses cpu samples here (no unwinder aggregate bound, no stream budget reached):
      // the note's count is the summary's.
      expect(Number(m![1])).toBe(lost);
      expect(Number(m![2])).toBe(samples);
      expect(Number(m![4])).toBeGreaterThan(0);
      expect(Number(m![4])).toBeLessThanOrEqual(lost);
      // Every sample is in a stack or counted lost.
      expect(inStacks + lost).toBeGreaterThanOrEqual(samples);
      const inst = instrumentationFromStream(run.stdout, ["cpu"]);
      expect(inst.notes).toContain(note!);
      expect(inst.lost?.find((l) => l.axis === "cpu")?.share).toBeCloseTo(Math.min(1, lost / samples), 6);
    });
  }, 120_000);
});
