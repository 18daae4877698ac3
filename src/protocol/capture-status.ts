// Wire schema of `GET /api/profiling/captures/{id}` (read token): a capture's status, outcome and,
// for a pushed capture, the summary of its version's diff — the verdict, its sentence and the
// functions that changed. Nothing else: no profile, no flame graph, no requester, no instrumentation.
// /openapi.json publishes these objects; the handler builds its answer to them.
import { Type, type Static } from "@sinclair/typebox";
import { CaptureKind } from "./capture-request.ts";

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const ChangedFunction = Type.Object({
  function: Type.String(),
  axis: Type.String({ description: "cpu, offcpu, syscalls, locks or alloc" }),
  cost: Type.Union([Type.Literal("self"), Type.Literal("total")]),
  direction: Type.Union([Type.Literal("up"), Type.Literal("down")], { description: "up: it costs more in the new version (a regression); down: less" }),
  relative_change: Type.Number({ description: "0.25 = +25%" }),
  interval: Type.Tuple([Type.Number(), Type.Number()], { description: "95% interval of the relative change" }),
  confirmation: Type.Union([Type.Literal("confirmed"), Type.Literal("suspect"), Type.Null()], {
    description: "confirmed: a later replicate of the new version shows it on its own; suspect: not yet",
  }),
});
export type ChangedFunction = Static<typeof ChangedFunction>;

export const DiffSummary = Type.Object({
  head_request_id: Type.String({ description: "the head capture of this version; the diff belongs to it, and each replicate refreshes it" }),
  compared_with: Type.Union([Type.Object({ request_id: Type.String(), version: Type.String() }), Type.Null()], {
    description: "the baseline: the head of the prior version; null with `note` saying why there is none",
  }),
  note: Type.String(),
  baseline: Type.Union([Type.Literal("compared"), Type.Literal("none"), Type.Literal("pruned"), Type.Literal("error")], {
    description:
      "compared: see compared_with; none: no earlier version (or no head of this one) to compare yet; pruned: the baseline's profiles were removed by the retention policy; error: the diff could not be computed (note says why)",
  }),
  verdict: Type.Union([Type.Literal("changed"), Type.Literal("unchanged"), Type.Literal("insufficient"), Type.Null()], {
    description: "null when there was nothing to compare with",
  }),
  sentence: Nullable(Type.String({ description: "what the verdict rests on, in words" })),
  changes: Type.Array(ChangedFunction, { description: "the functions flagged as changed (above the noise floor after multiple-testing correction)" }),
  computed_at: Type.String({ format: "date-time" }),
});
export type DiffSummary = Static<typeof DiffSummary>;

export const CaptureStatusBody = Type.Object({
  request_id: Type.String(),
  workload: Type.String(),
  version: Type.String(),
  env: Type.String(),
  kind: CaptureKind,
  status: Type.Union([Type.Literal("queued"), Type.Literal("running"), Type.Literal("done")], {
    description: "queued waits for a live Profiler; running: a Profiler is capturing; done: `outcome` is set",
  }),
  outcome: Type.Union([Type.Literal("pushed"), Type.Literal("nothing_to_push"), Type.Literal("failed"), Type.Null()]),
  reason: Nullable(Type.String({ description: "why it failed or pushed nothing" })),
  verdict_pending: Type.Boolean({ description: "pushed, and the diff that includes this capture is still being computed" }),
  diff: Type.Union([DiffSummary, Type.Null()]),
});
export type CaptureStatusBody = Static<typeof CaptureStatusBody>;

/** What a pipeline gates on, from a finished status. */
export type Gate = "unchanged" | "regression" | "insufficient" | "failed" | "improved";

/**
 * unchanged: the diff decided nothing changed. regression: a function costs more and a later
 * replicate confirmed it. improved: changed, and nothing costs more. insufficient: no baseline
 * (none yet, or pruned), too few captures to decide, or a rise still suspect (its confirming
 * replicate has not come). failed: the capture failed or pushed nothing, or no diff could be made.
 */
export function gateOf(s: CaptureStatusBody): Gate {
  if (s.outcome !== "pushed") return "failed";
  const d = s.diff;
  if (!d || d.baseline === "error") return "failed";
  if (d.verdict === null || d.verdict === "insufficient") return "insufficient";
  if (d.verdict === "unchanged") return "unchanged";
  const ups = d.changes.filter((c) => c.direction === "up");
  if (ups.some((c) => c.confirmation === "confirmed")) return "regression";
  if (ups.length > 0) return "insufficient";
  return "improved";
}
