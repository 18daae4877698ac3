// Issue 17: a sample that is in no stack (the unwinder's aggregate full or out of memory, or the
// ring buffer full) is counted in the summary's `lost`; when more than 5% of an axis's samples are
// lost, the capture's instrumentation says so, as it does for incomplete stacks.
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { instrumentationFromStream, LOST_NOTICE_SHARE } from "../../src/profiler/instrumentation.ts";
import { Instrumentation } from "../../src/protocol/tunnel.ts";
import { StreamRecord } from "../../src/protocol/profile-stream.ts";
import { toRecordInstrumentation } from "../../src/server/dispatch/merge.ts";
import { instrumentationSummary } from "../../src/server/records/capture-json.ts";
import { instrumentationBlock } from "../../src/server/web/instrumentation.ts";

function stream(lostCpu: number, lostOffcpu: number, probes = ["cpu", "offcpu"], attachedOffcpu = true): string {
  const recs = [
    { type: "header", version: 1, workload: "w", probes_requested: probes, frequency_hz: 99, warmup_sec: 0, duration_sec: 1, started_at_ms: 0 },
    { type: "probe", name: "cpu", attached: true },
    { type: "probe", name: "offcpu", attached: attachedOffcpu, ...(attachedOffcpu ? {} : { reason: "tracefs is not mounted" }) },
    { type: "frame", id: 1, function: "main", kind: "native" },
    { type: "stack", axis: "cpu", frames: [1], value: 200 - lostCpu },
    ...(attachedOffcpu ? [{ type: "stack", axis: "offcpu", frames: [1], value: 1e9 }] : []),
    {
      type: "summary", samples: { cpu: 200, ...(attachedOffcpu ? { offcpu: 40 } : {}) },
      lost: { cpu: lostCpu, ...(attachedOffcpu ? { offcpu: lostOffcpu } : {}) },
      notes: lostCpu ? [`cpu: ${lostCpu} samples are in no stack (counted as lost): the unwinder's aggregate was full for ${lostCpu} and out of memory for 0`] : [],
      partial: false, ended_at_ms: 1, measured_sec: 1,
    },
  ];
  for (const r of recs) expect(Value.Check(StreamRecord, r)).toBe(true);
  return recs.map((r) => JSON.stringify(r)).join("\n") + "\n";
}

describe("lost samples in the instrumentation", () => {
  test("over 5% of an axis's samples lost is reported with its share; at or under 5% is not", () => {
    expect(LOST_NOTICE_SHARE).toBe(0.05);
    const i = instrumentationFromStream(stream(30, 2), ["cpu", "offcpu"]);
    expect(i.lost).toEqual([{ axis: "cpu", share: 0.15 }]); // offcpu: 2 of 40 = 5%, not over
    expect(Value.Check(Instrumentation, i)).toBe(true);
    expect(instrumentationFromStream(stream(10, 0), ["cpu", "offcpu"]).lost).toBeUndefined(); // exactly 5%
    expect(instrumentationFromStream(stream(11, 3), ["cpu", "offcpu"]).lost).toEqual([{ axis: "cpu", share: 0.055 }, { axis: "offcpu", share: 0.075 }]);
  });

  test("a capture with nothing lost has no lost entry; an axis that did not attach is never reported", () => {
    const whole = instrumentationFromStream(stream(0, 0), ["cpu", "offcpu"]);
    expect(whole).toEqual({ requested: ["cpu", "offcpu"], attached: ["cpu", "offcpu"], not_attached: [] });
    const noOff = instrumentationFromStream(stream(50, 0, ["cpu", "offcpu"], false), ["cpu", "offcpu"]);
    expect(noOff.lost).toEqual([{ axis: "cpu", share: 0.25 }]);
    expect(noOff.not_attached.map((x) => x.probe)).toEqual(["offcpu"]);
  });

  test("a stream without a summary (collector died) reports no share rather than a guess", () => {
    const cut = stream(30, 0).split("\n").filter((l) => !l.includes('"type":"summary"')).join("\n");
    expect(instrumentationFromStream(cut, ["cpu", "offcpu"]).lost).toBeUndefined();
  });
});

describe("lost samples on the record", () => {
  test("the record keeps them, its summary line and the capture screen say so", () => {
    const rec = toRecordInstrumentation(instrumentationFromStream(stream(30, 2), ["cpu", "offcpu"]));
    expect(rec.lost).toEqual([{ axis: "cpu", share: 0.15 }]);
    expect(instrumentationSummary(rec)).toBe("fully instrumented; cpu: 15% of samples lost");
    expect(String(instrumentationBlock(rec))).toContain("cpu: 15% of the samples taken are in no stack");
    const whole = toRecordInstrumentation(instrumentationFromStream(stream(0, 0), ["cpu", "offcpu"]));
    expect(whole.lost).toBeUndefined();
    expect(String(instrumentationBlock(whole))).not.toContain("in no stack");
  });
});
