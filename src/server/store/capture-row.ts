// The capture_requests row (joined with its org's name) as both stores return it, and its record.
// Timestamps are epoch milliseconds; PostgreSQL hands BIGINT columns over as strings.
import type { CaptureRecord } from "./types.ts";

/** capture_requests joined with its org's name: the SELECT every CaptureRow read starts with. */
export const SELECT_CAPTURE = `SELECT c.*, o.name AS org_name FROM capture_requests c JOIN orgs o ON o.id = c.org_id`;

export interface CaptureRow {
  request_id: string;
  org_name: string;
  workload: string;
  version: string;
  env: string;
  kind: "head" | "replicate";
  duration_sec: number;
  warmup_sec: number;
  requester: string;
  status: CaptureRecord["status"];
  outcome: CaptureRecord["outcome"];
  reason: string | null;
  instrumentation: string | null;
  created_at: string | number;
  updated_at: string | number;
}

export function toCapture(r: CaptureRow): CaptureRecord {
  return {
    requestId: r.request_id,
    orgName: r.org_name,
    workload: r.workload,
    version: r.version,
    env: r.env,
    kind: r.kind,
    durationSec: r.duration_sec,
    warmupSec: r.warmup_sec,
    requester: r.requester,
    status: r.status,
    outcome: r.outcome,
    reason: r.reason,
    instrumentation: r.instrumentation === null ? null : JSON.parse(r.instrumentation),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}
