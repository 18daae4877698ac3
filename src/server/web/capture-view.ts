// Everything the capture screen shows, read from the store: the record, its diff (stored per head
// capture), the captures on both sides for the flame graphs, and which axes are absent.
import { gunzipProfile, parseProfile, type Capture, type DiffResult } from "../../witness/index.ts";
import type { StoredDiff } from "../store/profiler-store.ts";
import type { Store } from "../store/store.ts";
import type { CaptureRecord } from "../store/types.ts";
import { flameAxis, type FlameAxis } from "./flame-data.ts";
import { topRows, type TopRow } from "./top-table.ts";

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
  /** This capture on its own: a flame graph and a top table per axis. */
  alone: Array<{ flame: FlameAxis; top: TopRow[] }>;
}

export async function loadCapture(store: Store, requestId: string): Promise<Capture | null> {
  const gz = await store.getProfile(requestId);
  if (!gz) return null;
  // Inflated off the event loop and refused past MAX_PROFILE_BYTES: a stored bomb costs this view
  // its flame graphs, not the server its memory or its answers to /healthz.
  return parseProfile(await gunzipProfile(gz, `the stored profile of ${requestId}`), `${requestId}.jsonl`);
}

async function loadAll(load: (requestId: string) => Promise<Capture | null>, records: CaptureRecord[]): Promise<Capture[]> {
  const heads = records.filter((r) => r.kind === "head");
  const ordered = [...heads, ...records.filter((r) => r.kind !== "head")];
  return (await Promise.all(ordered.map((r) => load(r.requestId)))).filter((c): c is Capture => c !== null);
}

export async function captureView(store: Store, record: CaptureRecord): Promise<CaptureView> {
  // Each profile is read and parsed once per view: the record's own one is also on the "after" side.
  const loaded = new Map<string, Promise<Capture | null>>();
  const load = (requestId: string) => {
    let p = loaded.get(requestId);
    if (!p) loaded.set(requestId, (p = loadCapture(store, requestId)));
    return p;
  };
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
  let profileError: string | null = null;
  const readable = async <T>(f: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      profileError = `a stored profile could not be read: ${(err as Error).message}`;
      return fallback;
    }
  };
  const own = record.outcome === "pushed" ? await readable(() => load(record.requestId), null) : null;
  const absent = new Map<string, string>();
  for (const m of record.instrumentation?.missing ?? []) absent.set(m.probe, m.reason);
  for (const m of own?.missing ?? []) if (!absent.has(m.axis)) absent.set(m.axis, m.reason);
  for (const a of result?.axes_not_compared ?? []) if (!absent.has(a.axis)) absent.set(a.axis, a.reason);

  let flames: FlameAxis[] = [];
  if (result && diff?.comparedWith) {
    const sides = await readable(async () => {
      const after = await loadAll(load, await ofVersion());
      const before = await loadAll(load, await store.listPushedOfVersion(record.orgName, record.workload, record.env, diff!.comparedWith!.version));
      return { before, after };
    }, null);
    if (sides) flames = result.axes_compared.map((a) => flameAxis(a.axis, a.unit, sides.before, sides.after, result.changes));
  }
  return {
    record,
    diff,
    result,
    head,
    flames,
    absent: [...absent].map(([axis, reason]) => ({ axis, reason })),
    hasProfile: own !== null,
    presentAxes: own ? Object.keys(own.axes) : [],
    profileError,
    alone: own ? Object.values(own.axes).map((p) => ({ flame: flameAxis(p.axis, p.unit, [], [own], []), top: topRows(p.axis, [own]) })) : [],
  };
}
