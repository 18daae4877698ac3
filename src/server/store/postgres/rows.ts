// Row <-> record mapping shared by the PostgreSQL table modules. BIGINT columns arrive as strings.
import type { Org } from "../types.ts";
export { SELECT_CAPTURE, toCapture, type CaptureRow as PgCaptureRow } from "../capture-row.ts";

export interface PgOrgRow {
  id: string | number;
  name: string;
  profiler_enabled: boolean;
  created_at: string | number;
}

export function toOrg(r: PgOrgRow): Org {
  return { id: Number(r.id), name: r.name, profilerEnabled: r.profiler_enabled, createdAt: Number(r.created_at) };
}

export function isUniqueViolation(err: unknown): boolean {
  return (err as { errno?: string } | null)?.errno === "23505";
}
