import { describe, expect, test } from "bun:test";
import { backoffDelayMs } from "../../src/profiler/backoff.ts";
import { instrumentationFromStream } from "../../src/profiler/instrumentation.ts";
import { toRecordInstrumentation } from "../../src/server/dispatch/merge.ts";
import { instrumentationSummary } from "../../src/server/records/capture-json.ts";
import type { Instrumentation } from "../../src/protocol/tunnel.ts";
import { enrolEndpoint } from "../../src/profiler/enrol-client.ts";
import { parseListen } from "../../src/config/profiler-env.ts";

describe("backoff", () => {
  test("grows exponentially and is capped", () => {
    const max = () => 0.999999;
    expect(backoffDelayMs(0, 500, 30_000, max)).toBe(499);
    expect(backoffDelayMs(3, 500, 30_000, max)).toBe(3999);
    expect(backoffDelayMs(50, 500, 30_000, max)).toBe(29999);
  });
  test("is jittered over the whole interval", () => {
    expect(backoffDelayMs(5, 500, 30_000, () => 0)).toBe(0);
  });
});

describe("instrumentation", () => {
  // What the record shows for the Profiler's declaration (the server's reading of the wire form).
  const describeInstrumentation = (i: Instrumentation) => instrumentationSummary(toRecordInstrumentation(i));

  const stream = [
    JSON.stringify({ type: "header", version: 1 }),
    JSON.stringify({ type: "probe", name: "cpu", attached: true }),
    JSON.stringify({ type: "probe", name: "offcpu", attached: false, reason: "tracefs not mounted at /sys/kernel/tracing" }),
    JSON.stringify({ type: "probe", name: "syscalls", attached: false, reason: "tracefs not mounted at /sys/kernel/tracing" }),
  ].join("\n");

  test("counts attached probes and keeps the reasons of the others", () => {
    const i = instrumentationFromStream(stream, ["cpu", "offcpu", "syscalls"]);
    expect(i.attached).toEqual(["cpu"]);
    expect(i.not_attached.map((n) => n.probe)).toEqual(["offcpu", "syscalls"]);
    expect(describeInstrumentation(i)).toStartWith("1 of 3 probes");
    expect(describeInstrumentation(i)).toContain("tracefs not mounted");
  });

  test("a probe the collector never mentioned is not attached", () => {
    const i = instrumentationFromStream(JSON.stringify({ type: "probe", name: "cpu", attached: true }), ["cpu", "offcpu"]);
    expect(i.not_attached).toEqual([{ probe: "offcpu", reason: "the collector did not report this probe" }]);
  });

  test("fully instrumented when every requested probe attached", () => {
    const i = instrumentationFromStream(JSON.stringify({ type: "probe", name: "cpu", attached: true }), ["cpu"]);
    expect(describeInstrumentation(i)).toBe("fully instrumented");
  });
});

describe("addresses", () => {
  test("the enrol URL may be the base address", () => {
    expect(enrolEndpoint("https://cp.example:8080")).toBe("https://cp.example:8080/api/profiler/enroll");
    expect(enrolEndpoint("https://cp.example/custom/enroll")).toBe("https://cp.example/custom/enroll");
  });
  test("RUNNER_LOCAL_LISTEN is HOST:PORT", () => {
    expect(parseListen("127.0.0.1:7071")).toEqual({ host: "127.0.0.1", port: 7071 });
    expect(parseListen("7071")).toBeUndefined();
  });
});
