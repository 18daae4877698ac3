// The part of the compare screen that reads profiles: both sides parsed, diffed by witness with the
// automatic diff's call and defaults, and the flame data drawn. Run in the server's worker
// (off-loop/): the reader picks any two versions, and their diff must not hold up /healthz or any
// other tenant's tunnel while it is computed.
import type { JobProfile } from "../records/diff-job.ts";
import { diffCaptures, gunzipProfileSync, parseProfile, type DiffResult } from "../../witness/index.ts";
import { flameAxis, type FlameAxis } from "./flame-data.ts";

export interface CompareJob {
  before: JobProfile[];
  after: JobProfile[];
}

/** The diff and its flame data, or why not (worded for the page). */
export function runCompareJob(job: CompareJob): { result: DiffResult; flames: FlameAxis[] } | string {
  const read = (p: JobProfile) => parseProfile(gunzipProfileSync(p.gz, `the stored profile of ${p.requestId}`), p.name);
  let caps;
  try {
    caps = { before: job.before.map(read), after: job.after.map(read) };
  } catch (err) {
    return `a stored profile could not be read: ${(err as Error).message}`;
  }
  const result = diffCaptures(caps);
  return { result, flames: result.axes_compared.map((a) => flameAxis(a.axis, a.unit, caps.before, caps.after, result.changes)) };
}
