// A comparison the reader picked: each side's captures read from the store, diffed by witness
// with the automatic diff's call and defaults in the worker (compare-job.ts), and shaped for
// diff-view.ts.
import type { DiffResult } from "../../witness/index.ts";
import type { Store } from "../store/store.ts";
import type { CaptureRecord } from "../store/types.ts";
import { runCompareJobInWorker } from "../off-loop/run-in-worker.ts";
import { storedProfiles } from "./capture-view.ts";
import { sideRecords, type ComparePick } from "./compare-sides.ts";
import type { FlameAxis } from "./flame-data.ts";

export interface Comparison {
  pick: ComparePick;
  records: { before: CaptureRecord[]; after: CaptureRecord[] };
  result: DiffResult;
  flames: FlameAxis[];
  absent: Array<{ axis: string; reason: string }>;
}

/** The records of both sides of a pick, or what makes it impossible (worded for the page). */
export async function compareRecords(store: Store, org: string, pick: ComparePick): Promise<Comparison["records"] | string> {
  const before = await sideRecords(store, org, pick.workload, pick.before);
  if (typeof before === "string") return before;
  const after = await sideRecords(store, org, pick.workload, pick.after);
  if (typeof after === "string") return after;
  const overlap = before.filter((b) => after.some((a) => a.requestId === b.requestId));
  if (overlap.length) return `the same capture cannot be on both sides (${overlap.map((r) => r.requestId).join(", ")})`;
  return { before, after };
}

/** The comparison, or what makes it impossible (worded for the page). The diff is computed in the worker. */
export async function compare(store: Store, org: string, pick: ComparePick): Promise<Comparison | string> {
  const records = await compareRecords(store, org, pick);
  if (typeof records === "string") return records;
  const job = { before: await storedProfiles(store, records.before), after: await storedProfiles(store, records.after) };
  if (!job.before.length || !job.after.length) return "a side has no stored profile";
  const out = await runCompareJobInWorker(job);
  if (typeof out === "string") return out;
  return { pick, records, result: out.result, flames: out.flames, absent: out.result.axes_not_compared };
}
