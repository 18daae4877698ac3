// Everything the capture screen shows, read from the store: the record, its diff (stored per head
// capture), the captures on both sides for the flame graphs (drawn in the worker, within a budget),
// and which axes are absent.
import type { DiffResult } from "../../witness/index.ts";
import type { StoredDiff } from "../store/profiler-store.ts";
import type { Store } from "../store/store.ts";
import type { CaptureRecord } from "../store/types.ts";
import { runCaptureViewJobInWorker } from "../off-loop/run-in-worker.ts";
import type { JobProfile } from "../records/diff-job.ts";
import type { CaptureViewJob } from "./capture-view-job.ts";
import type { FlameAxis } from "./flame-data.ts";
import type { TopRow } from "./top-table.ts";

export interface CaptureView {
  record: CaptureRecord;
  diff: StoredDiff | null;
  result: DiffResult | null;
  /** For a replicate: the head of its version, which holds the diff. */
  head: CaptureRecord | null;
  flames: FlameAxis[];
  absent: Array<{ axis: string; reason: string }>;
  hasProfile: boolean;
  presentAxes: string[];
  /** Why a stored profile could not be read (the page still shows the record and the diff table). */
  profileError: string | null;
  /** This capture on its own: a flame graph and a top table per axis with samples. */
  alone: Array<{ flame: FlameAxis; top: TopRow[] }>;
  /** Axes this capture declared but never sampled (a locks probe on a process that took no contended lock): listed, not drawn. */
  unsampled: string[];
  /** When retention pruned this capture's profile, and the baseline's its diff was compared with (null: not pruned). */
  pruned: { self: number | null; baseline: number | null };
}

export async function captureView(store: Store, record: CaptureRecord): Promise<CaptureView> {
  // The pushed captures of this record's version: a replicate's head is among them, and they are the diff's "after" side.
  let pushedOfVersion: CaptureRecord[] | null = null;
  const ofVersion = async () => (pushedOfVersion ??= await store.listPushedOfVersion(record.orgName, record.workload, record.env, record.version));
  let head: CaptureRecord | null = null;
  let diff = await store.getDiff(record.requestId);
  if (record.kind === "replicate") {
    const pushed = await ofVersion();
    head = pushed.filter((r) => r.kind === "head").at(-1) ?? null;
    diff = head ? await store.getDiff(head.requestId) : diff;
  }
  const result = diff?.json ? (JSON.parse(diff.json) as DiffResult) : null;
  // The store is read here; the profiles are parsed and drawn in the worker (capture-view-job.ts).
  const job: CaptureViewJob = { own: record.outcome === "pushed" ? await storedProfile(store, record) : null, sides: null };
  if (result && diff?.comparedWith) {
    const before = await store.listPushedOfVersion(record.orgName, record.workload, record.env, diff.comparedWith.version);
    job.sides = { before: await storedProfiles(store, headFirst(before)), after: await storedProfiles(store, headFirst(await ofVersion())), axes: result.axes_compared, changes: result.changes };
  }
  const [parts, prunedSelf, prunedBaseline] = await Promise.all([
    runCaptureViewJobInWorker(job),
    store.prunedAt(record.requestId),
    diff?.comparedWith ? store.prunedAt(diff.comparedWith.requestId) : null,
  ]);
  const drawn = typeof parts === "string" ? null : parts;
  const own = drawn?.own ?? null;
  const absent = new Map<string, string>();
  for (const m of record.instrumentation?.missing ?? []) absent.set(m.probe, m.reason);
  for (const m of own?.missing ?? []) if (!absent.has(m.axis)) absent.set(m.axis, m.reason);
  for (const a of result?.axes_not_compared ?? []) if (!absent.has(a.axis)) absent.set(a.axis, a.reason);
  return {
    record,
    diff,
    result,
    head,
    flames: drawn?.flames ?? [],
    absent: [...absent].map(([axis, reason]) => ({ axis, reason })),
    hasProfile: own !== null,
    presentAxes: own?.presentAxes ?? [],
    profileError: typeof parts === "string" ? parts : parts.profileError,
    alone: own?.alone ?? [],
    unsampled: own?.unsampled ?? [],
    pruned: { self: prunedSelf, baseline: prunedBaseline },
  };
}

const profileName = (r: CaptureRecord) => `${r.requestId}.jsonl`;

async function storedProfile(store: Store, r: CaptureRecord): Promise<JobProfile | null> {
  const gz = await store.getProfile(r.requestId);
  return gz ? { requestId: r.requestId, name: profileName(r), gz } : null;
}

/** Head first, as witness reads a side. */
const headFirst = (records: CaptureRecord[]) => [...records.filter((r) => r.kind === "head"), ...records.filter((r) => r.kind !== "head")];

/** The stored profiles of `records`, in their order, for a worker job; records with none left out. */
export async function storedProfiles(store: Store, records: CaptureRecord[]): Promise<JobProfile[]> {
  return (await Promise.all(records.map((r) => storedProfile(store, r)))).filter((p): p is JobProfile => p !== null);
}
