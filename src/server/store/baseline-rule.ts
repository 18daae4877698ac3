// The baseline rule, stated once: a version's capture is compared with the latest pushed head of
// another version of the same workload and env in the same org, captured before it, together with
// that version's pushed replicates. Both stores answer it in SQL (findBaseline); this is the rule
// their queries must agree with, checked over a table in test/unit/store-baseline-rule.test.ts.
import type { CaptureRecord } from "./types.ts";

export interface BaselineQuery {
  orgName: string;
  workload: string;
  env: string;
  /** The version being compared: its own captures are never its baseline. */
  version: string;
  /** Only captures created strictly before this. */
  before: number;
}

/** The baseline head among `records`, or null; ties in created_at are not decided by the rule. */
export function baselineHead(records: readonly CaptureRecord[], q: BaselineQuery): CaptureRecord | null {
  let best: CaptureRecord | null = null;
  for (const r of records) {
    if (r.orgName !== q.orgName || r.workload !== q.workload || r.env !== q.env || r.version === q.version) continue;
    if (r.kind !== "head" || r.outcome !== "pushed" || !(r.createdAt < q.before)) continue;
    if (!best || r.createdAt > best.createdAt) best = r;
  }
  return best;
}

/** The pushed replicates of the baseline head's version, oldest first. */
export function baselineReplicates(records: readonly CaptureRecord[], head: CaptureRecord): CaptureRecord[] {
  return records
    .filter((r) => r.orgName === head.orgName && r.workload === head.workload && r.env === head.env && r.version === head.version && r.kind === "replicate" && r.outcome === "pushed")
    .sort((a, b) => a.createdAt - b.createdAt);
}
