// The diffs row as both stores return it, and its record.
// created_at is epoch milliseconds; PostgreSQL hands BIGINT columns over as strings.
import type { DiffSummary, StoredDiff } from "./profiler-store.ts";

export interface DiffRow {
  request_id: string;
  compared_with: string | null;
  compared_version: string | null;
  note: string;
  verdict: string | null;
  json: string | null;
  html: string | null;
  created_at: string | number;
}

export function toDiff(r: DiffRow): StoredDiff {
  return {
    requestId: r.request_id,
    comparedWith: r.compared_with ? { requestId: r.compared_with, version: r.compared_version ?? "" } : null,
    note: r.note,
    verdict: r.verdict,
    json: r.json,
    html: r.html,
    createdAt: Number(r.created_at),
  };
}

/** The columns of a diff summary: everything but the (large) JSON and HTML. */
export const SUMMARY_COLUMNS = "request_id, compared_with, compared_version, note, verdict, created_at";

export function toSummary(r: Omit<DiffRow, "json" | "html">): DiffSummary {
  return {
    requestId: r.request_id,
    comparedWith: r.compared_with ? { requestId: r.compared_with, version: r.compared_version ?? "" } : null,
    note: r.note,
    verdict: r.verdict,
    createdAt: Number(r.created_at),
  };
}
