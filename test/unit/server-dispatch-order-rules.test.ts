// The order a record becomes, the reasons, and a Profiler's message as the node answer, as both
// dispatchers state them (src/server/dispatch/order-rules.ts, node-answer.ts).
import { describe, expect, test } from "bun:test";
import type { Instrumentation } from "../../src/protocol/tunnel.ts";
import { nodeAnswer } from "../../src/server/dispatch/node-answer.ts";
import { answerReason, captureOrder, timeoutReason } from "../../src/server/dispatch/order-rules.ts";

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

describe("nodeAnswer", () => {
  const instrumentation: Instrumentation = { requested: ["cpu"], attached: ["cpu"], not_attached: [] };
  test("an answer or result without a reason gets the stated fallback; running is timed by the clock given", () => {
    expect(nodeAnswer({ type: "answer", request_id: "r", answer: "running" }, 42)).toEqual({ answer: { state: "running", since: 42 }, profile: null });
    expect(nodeAnswer({ type: "answer", request_id: "r", answer: "refused" }, 0).answer).toEqual({ state: "refused", reason: "refused" });
    expect(nodeAnswer({ type: "result", request_id: "r", outcome: "failed" }, 0).answer).toEqual({ state: "failed", reason: answerReason.failed, instrumentation: undefined });
    expect(nodeAnswer({ type: "result", request_id: "r", outcome: "nothing_to_push" }, 0).answer).toEqual({ state: "nothing_to_push", reason: "nothing to push" });
  });
  test("a pushed result carries its profile's bytes; one without a profile is failed, saying so", () => {
    const pushed = nodeAnswer({ type: "result", request_id: "r", outcome: "pushed", instrumentation, profile_gz_b64: Buffer.from([1, 2, 3]).toString("base64") }, 0);
    expect(pushed.answer).toEqual({ state: "pushed", instrumentation, note: undefined });
    expect([...pushed.profile!]).toEqual([1, 2, 3]);
    const empty = nodeAnswer({ type: "result", request_id: "r", outcome: "pushed", instrumentation }, 0);
    expect(empty).toEqual({ answer: { state: "failed", reason: "Profiler pushed a result without a profile" }, profile: null });
    expect(answerReason.restarted("node-1")).toBe("Profiler node-1 restarted during the capture");
  });
});
