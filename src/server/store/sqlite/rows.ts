// Row <-> record mapping shared by the SQLite table modules.
import type { CaptureRecord, Org } from "../types.ts";

export interface OrgRow {
  id: number;
  name: string;
  profiler_enabled: number;
  created_at: number;
}

export function toOrg(r: OrgRow): Org {
  return { id: r.id, name: r.name, profilerEnabled: r.profiler_enabled === 1, createdAt: r.created_at };
}

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
  created_at: number;
  updated_at: number;
}

export function toCapture(r: CaptureRow): CaptureRecord {
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
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/.test(err.message);
}
