// The one phrase for a capture's instrumentation, and every place that states it using it.
import { describe, expect, test } from "bun:test";
import { isFullyInstrumented, probeCoverage } from "../../src/protocol/instrumentation-statement.ts";
import { instrumentation } from "../../src/witness/model.ts";
import { instrumentationSummary } from "../../src/server/records/capture-json.ts";
import { instrumentationBlock } from "../../src/server/web/instrumentation.ts";
import { expectedInstrumentation } from "../../src/profiler/boot/tracing.ts";
import { NEVER_RAN } from "../../src/protocol/profile-stream.ts";

describe("probeCoverage", () => {
  test("fully instrumented only when every requested probe attached and none is missing", () => {
    expect(probeCoverage(3, 3, 0)).toBe("fully instrumented");
    expect(probeCoverage(1, 3, 2)).toBe("1 of 3 probes");
    expect(probeCoverage(3, 3, 1)).toBe("3 of 3 probes");
    expect(isFullyInstrumented(2, 3, 0)).toBe(false);
  });
  test("witness, server record, capture screen and boot line all state it the same way", () => {
    const cap = { meta: { source: "stream" as const, partial: false }, axes: { cpu: { axis: "cpu", unit: "samples" as const, frames: [], stacks: [] } }, missing: [{ axis: "offcpu", reason: "tracefs not mounted" }, { axis: "syscalls", reason: "tracefs not mounted" }] };
    expect(instrumentation(cap)).toBe("1 of 3 probes");
    const rec = { probes_requested: 3, probes_attached: 1, missing: [{ probe: "offcpu", reason: "tracefs not mounted" }] };
    expect(instrumentationSummary(rec)).toStartWith("1 of 3 probes (");
    expect(instrumentationBlock(rec).toString()).toContain(">1 of 3 probes</p>");
    expect(instrumentationBlock({ ...rec, probes_attached: 3, missing: [] }).toString()).toContain(">fully instrumented</p>");
    expect(expectedInstrumentation(["cpu"], [{ probe: "offcpu" }, { probe: "syscalls" }])).toStartWith("1 of 3 probes: ");
  });
  test("a probe that attached but never ran reads as such on the capture screen, not as 'did not attach'", () => {
    const reason = `${NEVER_RAN}: the kernel ran its BPF program 0 times in the 60.0 s window, though the sched/sched_switch tracepoint fires at every context switch`;
    const rec = { probes_requested: 3, probes_attached: 2, missing: [{ probe: "offcpu", reason }, { probe: "syscalls", reason: "tracefs not mounted" }] };
    const block = instrumentationBlock(rec).toString();
    expect(block).toContain(">2 of 3 probes</p>");
    expect(block).toContain(`<strong>offcpu</strong> ${NEVER_RAN}: the kernel ran`);
    expect(block).not.toContain("<strong>offcpu</strong> did not attach");
    expect(block).toContain("<strong>syscalls</strong> did not attach: tracefs not mounted");
  });
});
