// The work of the diff on arrival, as one job a worker runs (../off-loop/worker.ts): inflate and read the
// pushed profile within ptop's bounds, then the stored ones, compare, render. Nothing here touches
// the store or the event loop of the server; the job's inputs and result are plain data.
import { MAX_DIFF_HTML_BYTES, MAX_DIFF_JSON_BYTES, mib } from "../../protocol/profile-limits.ts";
import { diffCaptures, gunzipProfileSync, renderDiffHtml, detectFormat, parseProfile, type Capture } from "../../witness/index.ts";

export interface JobProfile {
  requestId: string;
  /** the name witness reads into the capture (version/kind/id.jsonl) */
  name: string;
  gz: Uint8Array;
}

export interface DiffJob {
  pushed: JobProfile;
  /** Head first on each side; a side may name the pushed profile by its request id (gz empty). Both empty: only check the pushed profile. */
  before: JobProfile[];
  after: JobProfile[];
}

export type DiffJobResult =
  | { kind: "refused"; reason: string }
  | { kind: "unreadable"; requestId: string; reason: string }
  | { kind: "checked" }
  | { kind: "diff"; verdict: string; json: string | null; html: string | null; notes: string[]; before: number; after: number };

/** Sent by the worker once the pushed profile was read: past this, a job over budget still keeps it. */
export const PUSHED_READ = "pushed-read";

/** A pushed profile must be a ptop stream: pprof and folded text are witness's inputs, not the Profiler's. */
export function readPushed(p: JobProfile): Capture {
  const bytes = gunzipProfileSync(p.gz, "the pushed profile");
  if (detectFormat(bytes, p.name) !== "stream") throw new Error("the pushed profile is not a ptop stream (JSON Lines starting with a header record)");
  return parseProfile(bytes, p.name);
}

const readStored = (p: JobProfile): Capture => parseProfile(gunzipProfileSync(p.gz, `the stored profile of ${p.requestId}`), p.name);

export function runDiffJob(job: DiffJob, progress: (what: string) => void = () => {}): DiffJobResult {
  let pushed: Capture;
  try {
    pushed = readPushed(job.pushed);
  } catch (err) {
    return { kind: "refused", reason: (err as Error).message };
  }
  progress(PUSHED_READ);
  if (job.before.length === 0 || job.after.length === 0) return { kind: "checked" };
  const read = (side: JobProfile[]): Capture[] | { requestId: string; reason: string } => {
    const out: Capture[] = [];
    for (const p of side) {
      if (p.requestId === job.pushed.requestId) {
        out.push(pushed);
        continue;
      }
      try {
        out.push(readStored(p));
      } catch (err) {
        return { requestId: p.requestId, reason: (err as Error).message };
      }
    }
    return out;
  };
  const before = read(job.before);
  if (!Array.isArray(before)) return { kind: "unreadable", ...before };
  const after = read(job.after);
  if (!Array.isArray(after)) return { kind: "unreadable", ...after };
  const diff = diffCaptures({ before, after });
  const notes: string[] = [];
  // Stored diffs are bounded: past a bound the verdict is kept and the document is not.
  let json: string | null = JSON.stringify(diff);
  if (Buffer.byteLength(json) > MAX_DIFF_JSON_BYTES) {
    notes.push(`the diff's JSON (${mib(Buffer.byteLength(json))}) is over the ${mib(MAX_DIFF_JSON_BYTES)} bound for a stored diff: not kept`);
    json = null;
  }
  let html: string | null = renderDiffHtml(diff, { before, after });
  if (Buffer.byteLength(html) > MAX_DIFF_HTML_BYTES) {
    notes.push(`the differential flame graph (${mib(Buffer.byteLength(html))}) is over the ${mib(MAX_DIFF_HTML_BYTES)} bound for a stored page: not kept`);
    html = null;
  }
  return { kind: "diff", verdict: diff.verdict, json, html, notes, before: before.length, after: after.length };
}
