// The order a record becomes and the timeout reasons, as both dispatchers state them
// (src/server/dispatch/order-rules.ts).
import { describe, expect, test } from "bun:test";
import { captureOrder, timeoutReason } from "../../src/server/dispatch/order-rules.ts";

describe("captureOrder", () => {
  test("carries exactly the fields that say what to measure, no more", () => {
    const record = { requestId: "r1", orgName: "acme", workload: "api", version: "v2", env: "prod", kind: "replicate" as const, durationSec: 30, warmupSec: 2, requester: "ci", status: "running" };
    const order = captureOrder(record.requestId, record);
    expect(order).toEqual({ request_id: "r1", workload: "api", version: "v2", env: "prod", kind: "replicate", duration_sec: 30, warmup_sec: 2 });
  });
});

describe("timeoutReason", () => {
  test("each names the Profiler, what it failed to do, and the limit in seconds", () => {
    expect(timeoutReason.lost("node-1", "tunnel closed", 20_000)).toBe("Profiler node-1 lost mid-capture (tunnel closed) and did not come back within 20 s");
    expect(timeoutReason.unacknowledged("node-1", 30_000)).toBe("Profiler node-1 did not acknowledge the order within 30 s");
    expect(timeoutReason.noResult("node-1", 60_000)).toBe("Profiler node-1 sent no result within the window plus 60 s");
  });
});
