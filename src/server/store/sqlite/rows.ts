// Row <-> record mapping shared by the SQLite table modules.
import type { Org } from "../types.ts";
export { SELECT_CAPTURE, toCapture, type CaptureRow } from "../capture-row.ts";

export interface OrgRow {
  id: number;
  name: string;
  profiler_enabled: number;
  created_at: number;
}

export function toOrg(r: OrgRow): Org {
  return { id: r.id, name: r.name, profilerEnabled: r.profiler_enabled === 1, createdAt: r.created_at };
}

export function isUniqueViolation(err: unknown): boolean {
  return err instanceof Error && /UNIQUE constraint failed/.test(err.message);
}
