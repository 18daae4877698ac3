// The JSON shape of a capture record for `runner admin captures … --json` (and the demo walkthrough).
import type { CaptureRecord, RecordInstrumentation } from "../store/types.ts";
import { probeCoverage } from "../../protocol/instrumentation-statement.ts";
import { captureOrder } from "../dispatch/order-rules.ts";

export function captureJson(r: CaptureRecord) {
  // What was asked for, in the wire's names, as the capture order carries it.
  const { request_id, ...request } = captureOrder(r.requestId, r);
  return {
    request_id,
    org: r.orgName,
    ...request,
    status: r.status,
    outcome: r.outcome,
    reason: r.reason,
    requester: r.requester,
    instrumentation: r.instrumentation,
    created_at: new Date(r.createdAt).toISOString(),
    updated_at: new Date(r.updatedAt).toISOString(),
  };
}

/** "fully instrumented", "N of M probes", or "not run yet" (no capture has happened). */
export function instrumentationSummary(i: RecordInstrumentation | null): string {
  if (!i) return "not run yet";
  const inc = [
    ...(i.incomplete ?? []).map((x) => `; ${x.axis}: ${(x.share * 100).toFixed(0)}% of stacks incomplete`),
    ...(i.lost ?? []).map((x) => `; ${x.axis}: ${(x.share * 100).toFixed(0)}% of samples lost`),
  ].join("");
  const why = i.missing.map((m) => `${m.probe}: ${m.reason}`).join("; ");
  return `${probeCoverage(i.probes_attached, i.probes_requested, i.missing.length)}${why ? ` (${why})` : ""}${inc}`;
}
