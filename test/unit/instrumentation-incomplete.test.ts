// Issue 17: when more than 5% of an axis is in stacks ptop could not walk to their root, the
// capture's instrumentation says so (Profiler -> tunnel -> record -> summary line).
import { describe, expect, test } from "bun:test";
import { instrumentationFromStream } from "../../src/profiler/instrumentation.ts";
import { toRecordInstrumentation } from "../../src/server/dispatch/merge.ts";
import { instrumentationSummary } from "../../src/server/records/capture-json.ts";

function stream(incompleteCpu: number, incompleteOffcpu: number): string {
  return [
    { type: "header", version: 1, workload: "w", probes_requested: ["cpu", "offcpu"], frequency_hz: 99, warmup_sec: 0, duration_sec: 1, started_at_ms: 0 },
    { type: "probe", name: "cpu", attached: true },
    { type: "probe", name: "offcpu", attached: true },
    { type: "frame", id: 0, function: "[truncated]", kind: "unknown" },
    { type: "frame", id: 1, function: "main", kind: "native" },
    { type: "stack", axis: "cpu", frames: [1], value: 100 - incompleteCpu },
    { type: "stack", axis: "cpu", frames: [0, 1], value: incompleteCpu },
    { type: "stack", axis: "offcpu", frames: [1], value: 1e9 - incompleteOffcpu },
    { type: "stack", axis: "offcpu", frames: [0, 1], value: incompleteOffcpu },
    { type: "summary", samples: { cpu: 100, offcpu: 50 }, lost: { cpu: 0, offcpu: 0 }, incomplete: { cpu: incompleteCpu, offcpu: incompleteOffcpu }, partial: false, ended_at_ms: 1, measured_sec: 1 },
  ].map((r) => JSON.stringify(r)).join("\n") + "\n";
}

describe("incomplete stacks in the instrumentation", () => {
  test("over 5% of an axis (in the axis's own unit) is reported, at or under 5% is not", () => {
    const i = instrumentationFromStream(stream(20, 0.03e9), ["cpu", "offcpu"]);
    expect(i.incomplete).toEqual([{ axis: "cpu", share: 0.2 }]);
    expect(instrumentationFromStream(stream(5, 0), ["cpu", "offcpu"]).incomplete).toBeUndefined();
    const both = instrumentationFromStream(stream(6, 0.5e9), ["cpu", "offcpu"]);
    expect(both.incomplete?.map((x) => x.axis)).toEqual(["cpu", "offcpu"]);
  });

  test("the record and its summary line say so", () => {
    const rec = toRecordInstrumentation(instrumentationFromStream(stream(20, 0), ["cpu", "offcpu"]));
    expect(rec.incomplete).toEqual([{ axis: "cpu", share: 0.2 }]);
    expect(instrumentationSummary(rec)).toBe("fully instrumented; cpu: 20% of stacks incomplete");
    const whole = toRecordInstrumentation(instrumentationFromStream(stream(0, 0), ["cpu", "offcpu"]));
    expect(instrumentationSummary(whole)).toBe("fully instrumented");
  });
});
