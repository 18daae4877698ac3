// What a capture actually measured, read from the probe records of a ptop stream.
import type { ProbeName, ProbeRecord, StackRecord, SummaryRecord } from "../protocol/profile-stream.ts";
import { clipReason, COLLECTOR_NOTE_CHARS, COLLECTOR_NOTES_MAX, type Instrumentation } from "../protocol/tunnel.ts";

/** Above this share of an axis in incomplete stacks, the capture's instrumentation says so. */
export const INCOMPLETE_NOTICE_SHARE = 0.05;
/** Above this share of an axis's samples lost (summary.lost / summary.samples), the same. */
export const LOST_NOTICE_SHARE = 0.05;

export function instrumentationFromStream(stream: string, requested: readonly ProbeName[]): Instrumentation {
  const probes = new Map<ProbeName, ProbeRecord>();
  const totals = new Map<string, number>();
  let incomplete: Record<string, number> = {};
  let samples: Record<string, number> = {};
  let lost: Record<string, number> = {};
  let notFired: Record<string, string> = {};
  let notes: string[] = [];
  for (const line of stream.split("\n")) {
    if (line.includes('"type":"stack"') || line.includes('"type":"summary"')) {
      try {
        const rec = JSON.parse(line) as StackRecord | SummaryRecord;
        if (rec.type === "stack") totals.set(rec.axis, (totals.get(rec.axis) ?? 0) + rec.value);
        if (rec.type === "summary") {
          if (rec.incomplete) incomplete = rec.incomplete;
          samples = rec.samples ?? {};
          lost = rec.lost ?? {};
          notFired = rec.not_fired ?? {};
          notes = rec.notes ?? [];
        }
      } catch {
        // counted only when well-formed
      }
      continue;
    }
    if (!line.includes('"type":"probe"')) continue;
    try {
      const rec = JSON.parse(line) as ProbeRecord;
      if (rec.type === "probe") probes.set(rec.name, rec);
    } catch {
      // A malformed line is the witness's problem to report; here we only count probes.
    }
  }
  const attached: ProbeName[] = [];
  const notAttached: Instrumentation["not_attached"] = [];
  for (const probe of requested) {
    const rec = probes.get(probe);
    // Attached but its program never ran: it measured nothing, so it counts as not attached.
    if (rec?.attached && notFired[probe] === undefined) attached.push(probe);
    else notAttached.push({ probe, reason: clipReason(notFired[probe] ?? rec?.reason ?? "the collector did not report this probe") });
  }
  const inc = Object.entries(incomplete)
    .map(([axis, v]) => ({ axis: axis as ProbeName, share: (totals.get(axis) ?? 0) > 0 ? v / totals.get(axis)! : 0 }))
    .filter((x) => attached.includes(x.axis) && x.share > INCOMPLETE_NOTICE_SHARE);
  // Lost samples are in no stack at all (ring buffer full, the unwinder's aggregate full or out of
  // memory): the capture holds fewer samples than were taken, which the stacks alone cannot show.
  const lostShares = Object.entries(lost)
    .map(([axis, v]) => ({ axis: axis as ProbeName, share: (samples[axis] ?? 0) > 0 ? Math.min(1, v / samples[axis]!) : 0 }))
    .filter((x) => attached.includes(x.axis) && x.share > LOST_NOTICE_SHARE);
  return {
    requested: [...requested],
    attached,
    not_attached: notAttached,
    ...(inc.length ? { incomplete: inc } : {}),
    ...(lostShares.length ? { lost: lostShares } : {}),
    ...(notes.length ? { notes: boundedNotes(notes) } : {}),
  };
}

/** Within the wire's bounds, saying what was cut rather than dropping it silently. A note can quote
 *  what a target controls (a process name): control characters leave the node as "?", so no screen
 *  or terminal that prints a note (`runner admin captures show`) is driven by them. */
function boundedNotes(notes: string[]): string[] {
  const cut = (note: string) => {
    const n = note.replace(/[\u0000-\u001f\u007f]/g, "?");
    return n.length > COLLECTOR_NOTE_CHARS ? `${n.slice(0, COLLECTOR_NOTE_CHARS - 1)}…` : n;
  };
  if (notes.length <= COLLECTOR_NOTES_MAX) return notes.map(cut);
  const kept = notes.slice(0, COLLECTOR_NOTES_MAX - 1).map(cut);
  return [...kept, `… and ${notes.length - kept.length} more notes from the collector`];
}
