// Row <-> record mapping shared by the PostgreSQL table modules. BIGINT columns arrive as strings.
import type { CaptureRecord, Org } from "../types.ts";

export interface PgOrgRow {
  id: string | number;
  name: string;
  profiler_enabled: boolean;
  created_at: string | number;
}

export function toOrg(r: PgOrgRow): Org {
  return { id: Number(r.id), name: r.name, profilerEnabled: r.profiler_enabled, createdAt: Number(r.created_at) };
}

export interface PgCaptureRow {
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

export function toCapture(r: PgCaptureRow): CaptureRecord {
  return {
    requestId: r.request_id,
    orgName: r.org_name,
    workload: r.workload,
    version: r.version,
    env: r.env,
    kind: r.kind,
    duration_sec: r.duration_sec,
    warmup_sec: r.warmup_sec,
    requester: r.requester,
    status: r.status,
    outcome: r.outcome,
    reason: r.reason,
    instrumentation: r.instrumentation === null ? null : JSON.parse(r.instrumentation),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export const SELECT_CAPTURE = `SELECT c.*, o.name AS org_name FROM capture_requests c JOIN orgs o ON o.id = c.org_id`;

export function isUniqueViolation(err: unknown): boolean {
  return (err as { errno?: string } | null)?.errno === "23505";
}
