// What both dispatchers (dispatcher.ts on SQLite, cluster-dispatcher.ts with the PostgreSQL store)
// say the same way: the capture order a record becomes on the wire, and every reason a node's
// answer is recorded with that the Profiler did not state itself. Pure: no store, no clock.
import type { CaptureRequest } from "../../protocol/capture-request.ts";
import type { CaptureOrder } from "../../protocol/tunnel.ts";

/** The order sent over the tunnel for a request (the fields that say what to measure). */
export function captureOrder(requestId: string, r: CaptureRequest): CaptureOrder {
  return {
    request_id: requestId,
    workload: r.workload,
    version: r.version,
    env: r.env,
    kind: r.kind,
    duration_sec: r.durationSec,
    warmup_sec: r.warmupSec,
  };
}

/** The failed answer's reason for each way a Profiler can run out of time. */
export const timeoutReason = {
  lost: (instance: string, why: string, reconnectGraceMs: number) =>
    `Profiler ${instance} lost mid-capture (${why}) and did not come back within ${reconnectGraceMs / 1000} s`,
  unacknowledged: (instance: string, ackTimeoutMs: number) => `Profiler ${instance} did not acknowledge the order within ${ackTimeoutMs / 1000} s`,
  noResult: (instance: string, resultGraceMs: number) => `Profiler ${instance} sent no result within the window plus ${resultGraceMs / 1000} s`,
};

/** The reason for an answer the Profiler gave without one, or one that cannot stand as given. */
export const answerReason = {
  restarted: (instance: string) => `Profiler ${instance} restarted during the capture`,
  pushedWithoutProfile: "Profiler pushed a result without a profile",
  failed: "failed",
  nothingToPush: "nothing to push",
};
