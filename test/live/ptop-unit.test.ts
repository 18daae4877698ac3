// Unit harnesses in C for what a live capture cannot provoke on demand (native/ptop/unit), under
// ASan + UBSan: the unwinder child when malloc/realloc/calloc fail and across a target's execve,
// and its stack deltas against libdwfl (each harness checks its own conditions and prints "ok"); the summary of a probe that attached
// but whose program the kernel never ran (read here by the Profiler's instrumentation and by
// witness, as a real capture is).
import { beforeAll, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { NEVER_RAN, type SummaryRecord } from "../../src/protocol/profile-stream.ts";
import { instrumentationFromStream } from "../../src/profiler/instrumentation.ts";
import { parseStream as parseWitnessStream } from "../../src/witness/stream.ts";
import { parseStream } from "./ptop-harness.ts";

const haveClang = Bun.which("clang") !== null;
const required = process.env.RUNNER_REQUIRE_LIVE === "1";
const PTOP_DIR = resolve(REPO_ROOT, "native/ptop");

describeUnless(whyNot([!haveClang && !required, "needs clang with ASan (Debian clang, libclang-rt-14-dev)"]))("ptop unit harnesses (ASan + UBSan)", () => {
  beforeAll(() => {
    const make = Bun.spawnSync(["make", "-s", "-C", PTOP_DIR, "unit"], { stderr: "pipe" });
    if (make.exitCode !== 0) throw new Error(`make unit failed: ${make.stderr.toString()}`);
  }, 300_000);

  function run(harness: string) {
    const r = Bun.spawnSync([join(PTOP_DIR, "build", harness)], { stdout: "pipe", stderr: "pipe" });
    const log = r.stderr.toString();
    expect({ exit: r.exitCode, sanitizer: /ERROR: (Address|Undefined)Sanitizer|runtime error/.test(log), log: r.exitCode ? log.slice(0, 2000) : "" })
      .toEqual({ exit: 0, sanitizer: false, log: "" });
    return r.stdout.toString();
  }

  test("unwinder child: every table it grows survives a failed allocation; each sample is aggregated or counted as dropped", () => {
    expect(run("unit_unwind_oom")).toMatch(/^ok: \d+ allocations in a run, [1-9]\d* runs with failures/);
  }, 120_000);

  test("unwinder child across an execve: each image's samples wait for that image's table, within a bound; one inside execve is marked", () => {
    expect(run("unit_unwind_exec")).toMatch(/^ok: 9 cases/);
  }, 60_000);

  test("stack deltas: an FP-less frame's row; the table-driven walk gives libdwfl's frames (whole, cut short, over garbage)", () => {
    expect(run("unit_delta_walk")).toMatch(/^ok: 23 cases/);
  }, 60_000);

  const REQUESTED = ["cpu", "offcpu", "syscalls", "locks"] as const;
  /** A whole stream around the summary line ptop's own output code writes: every probe attached. */
  function streamWith(ran: string, measuredSec: number): string {
    const r = Bun.spawnSync([join(PTOP_DIR, "build", "unit_summary"), ran, String(measuredSec)], { stdout: "pipe", stderr: "pipe" });
    expect({ exit: r.exitCode, stderr: r.stderr.toString() }).toEqual({ exit: 0, stderr: "" });
    const header = { type: "header", version: 1, workload: "api", probes_requested: REQUESTED, frequency_hz: 199, warmup_sec: 0, duration_sec: measuredSec, started_at_ms: 1_700_000_000_000 };
    const units = { cpu: "samples", offcpu: "nanoseconds", syscalls: "calls", locks: "nanoseconds" } as const;
    return [
      JSON.stringify(header),
      ...REQUESTED.map((name) => JSON.stringify({ type: "probe", name, attached: true })),
      ...REQUESTED.map((name) => JSON.stringify({ type: "axis", name, unit: units[name] })),
      r.stdout.toString().trimEnd(),
    ].join("\n") + "\n";
  }

  test("a probe that attached but never ran: named in summary.not_fired (valid against the protocol), counted as not attached, its axis absent in witness", () => {
    const stream = streamWith("s", 2);
    const summary = parseStream(stream).at(-1) as SummaryRecord; // schema-checked, every record
    const notFired = summary.not_fired ?? {};
    expect(Object.keys(notFired).sort()).toEqual(["cpu", "offcpu"]);
    for (const reason of Object.values(notFired)) {
      expect(reason.startsWith(NEVER_RAN)).toBe(true);
      expect(reason).toContain("0 times in the 2.0 s window");
    }
    expect(notFired.offcpu).toContain("sched_switch");
    const instr = instrumentationFromStream(stream, REQUESTED);
    expect(instr.attached).toEqual(["syscalls", "locks"]);
    expect(Object.fromEntries(instr.not_attached.map((m) => [m.probe, m.reason]))).toEqual(notFired);
    const capture = parseWitnessStream(stream);
    expect(Object.keys(capture.axes).sort()).toEqual(["locks", "syscalls"]);
    expect(capture.missing.map((m) => m.axis).sort()).toEqual(["cpu", "offcpu"]);
  });

  test("a probe that ran, or a window under a second: nothing named in summary.not_fired", () => {
    for (const [ran, sec] of [["cos", 60], ["", 0.5]] as const) {
      const stream = streamWith(ran, sec);
      expect((parseStream(stream).at(-1) as SummaryRecord).not_fired).toBeUndefined();
      expect(instrumentationFromStream(stream, REQUESTED).attached).toEqual([...REQUESTED]);
    }
  });
});
