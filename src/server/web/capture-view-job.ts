// The part of the capture screen that reads profiles: inflate and parse the stored ones, draw the
// flame data and the top tables. Run in the server's worker (off-loop/), never on the event loop:
// a profile within ptop's bounds can still be a 46 MB stream whose parse and flame data take
// seconds and gigabytes, which on the event loop stalled /healthz and every tenant's tunnel.
import type { JobProfile } from "../records/diff-job.ts";
import { gunzipProfileSync, axisTotal, parseProfile, type Change, type Capture } from "../../witness/index.ts";
import { flameAxis, type FlameAxis } from "./flame-data.ts";
import { topRows, type TopRow } from "./top-table.ts";

export interface CaptureViewJob {
  own: JobProfile | null;
  /** The diff's sides (head first), when the record has a stored diff with a baseline. */
  sides: { before: JobProfile[]; after: JobProfile[]; axes: Array<{ axis: string; unit: string }>; changes: Change[] } | null;
}

export interface CaptureViewParts {
  flames: FlameAxis[];
  /** the record's own capture, when it has one */
  own: { missing: Array<{ axis: string; reason: string }>; presentAxes: string[]; alone: Array<{ flame: FlameAxis; top: TopRow[] }>; unsampled: string[] } | null;
  profileError: string | null;
}

export function runCaptureViewJob(job: CaptureViewJob): CaptureViewParts {
  // Each profile is read and parsed once per view: the record's own one is also on the "after" side.
  const parsed = new Map<string, Capture>();
  const read = (p: JobProfile) => {
    let c = parsed.get(p.requestId);
    if (!c) parsed.set(p.requestId, (c = parseProfile(gunzipProfileSync(p.gz, `the stored profile of ${p.requestId}`), p.name)));
    return c;
  };
  let profileError: string | null = null;
  const readable = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch (err) {
      profileError = `a stored profile could not be read: ${(err as Error).message}`;
      return fallback;
    }
  };
  const own = job.own ? readable(() => read(job.own!), null) : null;
  let flames: FlameAxis[] = [];
  const sides = job.sides;
  if (sides) {
    const caps = readable(() => ({ before: sides.before.map(read), after: sides.after.map(read) }), null);
    if (caps) flames = sides.axes.map((a) => flameAxis(a.axis, a.unit, caps.before, caps.after, sides.changes));
  }
  const sampled = own ? Object.values(own.axes).filter((p) => axisTotal(p) > 0) : [];
  return {
    flames,
    own: own && {
      missing: own.missing,
      presentAxes: Object.keys(own.axes),
      alone: sampled.map((p) => ({ flame: flameAxis(p.axis, p.unit, [], [own], []), top: topRows(p.axis, [own]) })),
      unsampled: Object.values(own.axes).filter((p) => axisTotal(p) === 0).map((p) => p.axis),
    },
    profileError,
  };
}
