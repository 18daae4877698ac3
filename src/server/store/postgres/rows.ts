// Row <-> record mapping shared by the PostgreSQL table modules. BIGINT columns arrive as strings.
import type { Org } from "../types.ts";
export { toCapture, type CaptureRow as PgCaptureRow } from "../capture-row.ts";

export interface PgOrgRow {
  id: string | number;
  name: string;
  profiler_enabled: boolean;
  created_at: string | number;
}

export function toOrg(r: PgOrgRow): Org {
  return { id: Number(r.id), name: r.name, profilerEnabled: r.profiler_enabled, createdAt: Number(r.created_at) };
}

export const SELECT_CAPTURE = `SELECT c.*, o.name AS org_name FROM capture_requests c JOIN orgs o ON o.id = c.org_id`;

export function isUniqueViolation(err: unknown): boolean {
  return (err as { errno?: string } | null)?.errno === "23505";
}
