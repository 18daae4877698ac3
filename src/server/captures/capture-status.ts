// GET /api/profiling/captures/{id} with a read token, independent of the HTTP framework.
// 401 token missing/malformed/unknown/revoked (a capture token included: it reads nothing);
// 404 unknown id, another organization's capture, or a workload outside the token's scope (the
// same answer for all three: no probing of ids); 200 with the status and the diff summary.
import type { CaptureStatusBody, ChangedFunction, DiffSummary } from "../../protocol/capture-status.ts";
import type { DiffResult } from "../../witness/index.ts";
import type { StoredDiff } from "../store/profiler-store.ts";
import type { Store } from "../store/store.ts";
import type { CaptureRecord } from "../store/types.ts";
import { authenticateReadToken } from "../tokens/authenticate.ts";
import { BASELINE_PRUNED } from "../records/diff-on-arrival.ts";
import type { HttpAnswer } from "./queue-capture.ts";

export async function captureStatusRequest(store: Store, id: string, token: string | null): Promise<HttpAnswer> {
  const auth = await authenticateReadToken(store, token);
  if (!auth.ok) return { status: 401, body: { error: auth.error }, headers: { "www-authenticate": 'Bearer realm="runner"' } };
  const { org, workloads } = auth.principal;
  const record = await store.getCapture(id);
  if (!record || record.orgName !== org.name || (workloads !== null && !workloads.includes(record.workload))) {
    return { status: 404, body: { error: `no capture request "${id}" that this read token may read` } };
  }
  return { status: 200, body: await captureStatus(store, record) };
}

export async function captureStatus(store: Store, r: CaptureRecord): Promise<CaptureStatusBody> {
  const base = { request_id: r.requestId, workload: r.workload, version: r.version, env: r.env, kind: r.kind, status: r.status, outcome: r.outcome, reason: r.reason };
  if (r.outcome !== "pushed") return { ...base, verdict_pending: false, diff: null };
  // The diff belongs to the version's latest head; a replicate refreshes it. A diff older than this
  // record's completion does not include it yet.
  const head = (await store.listPushedOfVersion(r.orgName, r.workload, r.env, r.version)).filter((c) => c.kind === "head").at(-1);
  const [headDiff, own] = await Promise.all([head ? store.getDiff(head.requestId) : null, r.kind === "head" ? null : store.getDiff(r.requestId)]);
  const fresh = [headDiff, own].find((d) => d && d.createdAt >= r.updatedAt) ?? null;
  const shown = fresh ?? headDiff ?? own;
  return { ...base, verdict_pending: fresh === null, diff: shown ? diffSummary(shown) : null };
}

// Written by diff-on-arrival.ts when the diff could not be made (a profile past the limit, corrupt).
const DIFF_ERROR = /^(the pushed profile was not kept|the diff could not be computed)/;

export function diffSummary(d: StoredDiff): DiffSummary {
  const result = d.json ? (JSON.parse(d.json) as DiffResult) : null;
  const changes: ChangedFunction[] = (result?.changes ?? [])
    .filter((c) => c.flagged)
    .map((c) => ({
      function: c.function,
      axis: c.axis,
      cost: c.kind === "self" ? "self" : "total",
      direction: c.direction,
      relative_change: c.relative_change,
      interval: c.interval,
      confirmation: c.confirmation,
    }));
  return {
    head_request_id: d.requestId,
    compared_with: d.comparedWith ? { request_id: d.comparedWith.requestId, version: d.comparedWith.version } : null,
    note: d.note,
    baseline: d.comparedWith ? "compared" : d.note.startsWith(BASELINE_PRUNED) ? "pruned" : DIFF_ERROR.test(d.note) ? "error" : "none",
    verdict: (d.verdict as DiffSummary["verdict"]) ?? null,
    sentence: result?.reason ?? null,
    changes,
    computed_at: new Date(d.createdAt).toISOString(),
  };
}
