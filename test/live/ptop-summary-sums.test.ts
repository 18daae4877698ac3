// The summary's `samples` and `lost` agree with the stacks of the same capture (native/ptop/README.md,
// "Output"): every sample (wait, call) taken is in a stack or lost, counted alike, so on an axis
// whose value is a count (cpu: samples at the requested period; syscalls: calls) samples = the
// values' sum + lost, exactly; on an axis of nanoseconds (offcpu) samples counts the waits. Checked
// on a plain cpu capture, one with offcpu and syscalls on, and one that ptop's budget thinned
// (`make smallbudget`), where each kept cpu sample counts for the N it stands for in both. Before
// that fix a thinned capture said 1367 samples beside 2359 in its stacks.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { PTOP_EXIT, type StreamRecord, type SummaryRecord } from "../../src/protocol/profile-stream.ts";
import { buildHotloop, cleanup, runPtop, setcapPtop, setcapTestBuild, sharedTempDir, spawnAsNobody, sleep, stacksOf, writeTargets } from "./ptop-harness.ts";

const live = liveAvailable();
/** hotloop `sleepy` naps 2 ms a round: the mean wait of its threads is about that. */
const NAP_NS = 2e6;

function sums(records: StreamRecord[]) {
  const summary = records.at(-1) as SummaryRecord;
  const inStacks = (axis: string) => stacksOf(records, axis).reduce((a, s) => a + s.value, 0);
  return { summary, inStacks };
}

/** On each count axis: samples = the stacks' values + lost, exactly. */
function expectCountsAgree(records: StreamRecord[], axes: string[]) {
  const { summary, inStacks } = sums(records);
  for (const axis of axes) {
    const got = { axis, samples: summary.samples[axis], inStacksPlusLost: inStacks(axis) + summary.lost[axis]! };
    expect(got).toEqual({ axis, samples: got.inStacksPlusLost, inStacksPlusLost: got.inStacksPlusLost });
    expect(summary.samples[axis]!).toBeGreaterThan(0);
  }
}

/** offcpu's samples are its waits, not nanoseconds: the mean wait is the workload's 2 ms nap. */
function expectOffcpuWaits(records: StreamRecord[]) {
  const { summary, inStacks } = sums(records);
  const waits = summary.samples.offcpu! - summary.lost.offcpu!;
  expect(waits).toBeGreaterThanOrEqual(stacksOf(records, "offcpu").length);
  const meanNs = inStacks("offcpu") / waits;
  expect({ meanNs, napLike: meanNs >= 0.9 * NAP_NS && meanNs < 10 * NAP_NS }).toEqual({ meanNs, napLike: true });
}

describeUnless(whyNot([!live, NOT_ROOT]))("ptop's summary counts and the stacks' sums (live)", () => {
  let dir = "";
  let targets = "";
  let work: ReturnType<typeof spawnAsNobody> | undefined;
  beforeAll(async () => {
    dir = sharedTempDir("ptop-sums-");
    const hotloop = buildHotloop(dir, "sumsloop");
    targets = writeTargets(dir, { targets: [{ workload: "sumsloop" }] });
    work = spawnAsNobody([hotloop, "2", "60", "sleepy"]);
    await sleep(300);
  }, 60_000);
  afterAll(async () => {
    work?.kill("SIGKILL");
    await work?.exited;
    cleanup(dir);
  });

  const capture = async (bin: string, probes: string, seconds: number) => {
    const run = await runPtop(bin, ["--targets", targets, "--workload", "sumsloop", "--duration", String(seconds), "--probes", probes, "--frequency", "999"]);
    expect({ exit: run.exitCode, stderr: run.exitCode ? run.stderr : "" }).toEqual({ exit: PTOP_EXIT.ok, stderr: "" });
    return run;
  };

  test("plain cpu capture, and with offcpu and syscalls on: each count axis sums exactly", async () => {
    const ptop = setcapPtop(dir);
    expectCountsAgree((await capture(ptop, "cpu", 2)).records, ["cpu"]);
    const all = await capture(ptop, "cpu,offcpu,syscalls", 2);
    expectCountsAgree(all.records, ["cpu", "syscalls"]);
    expectOffcpuWaits(all.records);
  }, 60_000);

  test("thinned by the budget: each kept cpu sample counts N in samples, lost and the stacks alike", async () => {
    const run = await capture(setcapTestBuild(dir, "smallbudget"), "cpu,offcpu,syscalls", 5);
    const { summary } = sums(run.records);
    expect(summary.sample_weight?.cpu).toBeGreaterThan(1);
    expectCountsAgree(run.records, ["cpu", "syscalls"]);
    expectOffcpuWaits(run.records);
  }, 90_000);
});
