// A comparison the reader picked: each side's captures loaded from the store, diffed by witness
// with the automatic diff's call and defaults, and shaped for diff-view.ts.
import { diffCaptures, type DiffResult, type Capture } from "../../witness/index.ts";
import type { Store } from "../store/store.ts";
import type { CaptureRecord } from "../store/types.ts";
import { loadCapture } from "./capture-view.ts";
import { sideRecords, type ComparePick } from "./compare-sides.ts";
import { flameAxis, type FlameAxis } from "./flame-data.ts";

export interface Comparison {
  pick: ComparePick;
  records: { before: CaptureRecord[]; after: CaptureRecord[] };
  captures: { before: Capture[]; after: Capture[] };
  result: DiffResult;
  flames: FlameAxis[];
  absent: Array<{ axis: string; reason: string }>;
}

export async function loadSide(store: Store, rs: CaptureRecord[]): Promise<Capture[]> {
  return (await Promise.all(rs.map((r) => loadCapture(store, r.requestId)))).filter((c): c is Capture => c !== null);
}

/** The comparison, or what makes it impossible (worded for the page). */
export async function compare(store: Store, org: string, pick: ComparePick): Promise<Comparison | string> {
  const before = await sideRecords(store, org, pick.workload, pick.before);
  if (typeof before === "string") return before;
  const after = await sideRecords(store, org, pick.workload, pick.after);
  if (typeof after === "string") return after;
  const overlap = before.filter((b) => after.some((a) => a.requestId === b.requestId));
  if (overlap.length) return `the same capture cannot be on both sides (${overlap.map((r) => r.requestId).join(", ")})`;
  let caps: { before: Capture[]; after: Capture[] };
  try {
    caps = { before: await loadSide(store, before), after: await loadSide(store, after) };
  } catch (err) {
    return `a stored profile could not be read: ${(err as Error).message}`;
  }
  if (!caps.before.length || !caps.after.length) return "a side has no stored profile";
  const result = diffCaptures(caps);
  const flames = result.axes_compared.map((a) => flameAxis(a.axis, a.unit, caps.before, caps.after, result.changes));
  return { pick, records: { before, after }, captures: caps, result, flames, absent: result.axes_not_compared };
}
