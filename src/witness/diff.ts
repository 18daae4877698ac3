// diffCaptures: what changed between two versions, per function, per axis — and how sure we are.
// The statistical design is explained in README.md ("witness: the version diff"); in short:
//   1. per axis, self and inclusive counts of every function in every capture (diff/axis-matrix.ts);
//   2. size factors (median-ratio for the verdict; share and rate reported beside it), and
//   3. run-to-run dispersion: the pool's α0 from the replicates, each function's departure from it
//      (quasi-dispersion) moderated across functions; a conservative prior with no replicates
//      (diff/normalisation-fit.ts);
//   4. a t-test of the log rate ratio with the function's variance moderated across functions,
//      weighted-Holm-adjusted across every tested function×kind×axis (family-wise error ≤ q),
//      flagged when adjusted p ≤ 0.05 and the change is at least the minimum effect (diff/holm-families.ts);
//   5. a confirmation window over later after-replicates, a power calculation (diff/changes.ts);
//   6. the verdict (diff/verdict.ts).

import { instrumentation, type Capture } from "./model.ts";
import type { Normalisation } from "./stats/normalise.ts";
import { axesOf, buildAxisMatrix, captureLabel, selectHypotheses, type AxisMatrix, type TestSet } from "./diff/axis-matrix.ts";
import { chooseNormalisation, fitNormalisation, sizeFactors, type NormalisationFit } from "./diff/normalisation-fit.ts";
import { familyLevels, weightedHolmByFamily } from "./diff/holm-families.ts";
import { axisChanges, type AxisWork } from "./diff/changes.ts";
import { verdictRunWithRoles } from "./diff/verdict-run.ts";
import { decidingRemedy, equivalence, promiseOf, PROMISE_SHARES } from "./diff/promise.ts";
import { overallVerdict } from "./diff/verdict.ts";
import { ALL_NORMS, axisNormalisation, resolveDiffSettings, type DiffSettings } from "./diff/settings.ts";

export type { Normalisation } from "./stats/normalise.ts";
export type { DiffOptions, DiffResult, Change, AxisReport, Side, NormalisedChange, CaptureInfo } from "./diff-result.ts";
import type { DiffOptions, DiffResult, AxisReport, CaptureInfo } from "./diff-result.ts";

function captureInfo(cs: Capture[], side: string, notes: string[]): CaptureInfo[] {
  return cs.map((c, i) => {
    if (c.meta.partial) notes.push(`${side} capture ${captureLabel(c, side, i)} is partial: ${c.meta.partialReason ?? "collector stopped early"}`);
    return {
      name: captureLabel(c, side, i),
      role: i === 0 ? "head" : "replicate",
      partial: c.meta.partial,
      measured_sec: c.meta.measuredSec ?? null,
      instrumentation: instrumentation(c),
    };
  });
}

/** Most distinct collector notes a diff repeats; the rest are counted. */
const COLLECTOR_NOTES_SHOWN = 12;

/** Each distinct collector note (ptop's summary.notes) once, with the captures that carry it: a
 *  caveat such as "python frames: unsupported version" explains an axis that looks wrong. */
function collectorNotes(before: Capture[], after: Capture[]): string[] {
  const where = new Map<string, string[]>();
  for (const [cs, side] of [[before, "before"], [after, "after"]] as const) {
    cs.forEach((c, i) => {
      for (const n of new Set(c.meta.collectorNotes ?? [])) where.set(n, [...(where.get(n) ?? []), captureLabel(c, side, i)]);
    });
  }
  const all = before.length + after.length;
  const lines = [...where].map(([note, labels]) => `collector (${labels.length === all && all > 1 ? "every capture" : labels.join(", ")}): ${note}`);
  if (lines.length <= COLLECTOR_NOTES_SHOWN) return lines;
  return [...lines.slice(0, COLLECTOR_NOTES_SHOWN), `collector: ${lines.length - COLLECTOR_NOTES_SHOWN} more distinct notes (see each capture)`];
}

/** How the verdict's fit on one axis modelled run-to-run noise (refreshed when the axis is refitted). */
function dispersionReport(fit: NormalisationFit, nB: number, nA: number, usePrior: boolean): AxisReport["dispersion"] {
  return {
    source: usePrior ? "prior" : "replicates",
    pooled: fit.alpha0,
    run_to_run_cv: Math.sqrt(fit.alpha0),
    moderation: fit.variance ? { prior_scale: fit.variance.s02, prior_df: Number.isFinite(fit.variance.d0) ? fit.variance.d0 : null, loud: fit.variance.loud } : null,
    df: nB - (nB > 0 ? 1 : 0) + nA - (nA > 0 ? 1 : 0),
    functions_pooled: fit.prior.atoms,
  };
}

function axisReport(m: AxisMatrix, tests: TestSet, used: Normalisation, normNote: string | undefined, verdict: NormalisationFit, usePrior: boolean): AxisReport {
  const nB = m.before.length;
  const nA = m.after.length;
  return {
    axis: m.axis,
    unit: m.unit,
    captures: { before: nB, after: nA },
    excluded: m.excluded,
    normalisation: used,
    ...(normNote ? { normalisation_note: normNote } : {}),
    dispersion: dispersionReport(verdict, nB, nA, usePrior),
    tested: tests.hyps.length,
    distinct_tests: tests.distinct.length,
    untested: tests.untested,
    flagged: 0,
    secondary: 0,
    flagged_by_normalisation: {},
    power: 0,
    replicates_needed: null,
    promise: { share: null, power: 0, equivalent: false, wide: [] },
  };
}

/** Stages 1–3 for one compared axis: matrices, hypotheses, every normalisation fitted. */
function fitAxis(m: AxisMatrix, s: DiffSettings, notes: string[], asked: DiffOptions["normalisation"]): AxisWork {
  const factors = sizeFactors(m);
  const { used, note } = chooseNormalisation(factors, axisNormalisation(m.axis, s, asked));
  if (note) notes.push(`${m.axis}: ${note}`);
  const tests = selectHypotheses(m, s);
  const usePrior = m.before.length < 2 && m.after.length < 2;
  const fits: NormalisationFit[] = [];
  for (const n of ALL_NORMS) {
    const size = factors[n];
    if (size) fits.push(fitNormalisation(n, size, m.cols, tests, { usePrior, priorAlpha: s.priorDispersion }));
  }
  const verdict = fits.find((p) => p.norm === used)!;
  if (usePrior) notes.push(`${m.axis}: one capture per side — run-to-run dispersion is the conservative prior α = ${s.priorDispersion} (${Math.round(Math.sqrt(s.priorDispersion) * 100)}% CV), not measured; add replicates to measure it`);
  if (m.excluded.length) notes.push(`${m.axis}: ${m.excluded.length} replicate(s) without this axis left out of its comparison`);
  return { report: axisReport(m, tests, used, note, verdict, usePrior), matrix: m, tests, fits, verdict };
}

export function diffCaptures(input: { before: Capture[]; after: Capture[] }, opts: DiffOptions = {}): DiffResult {
  const s = resolveDiffSettings(opts);
  if (input.before.length === 0 || input.after.length === 0) throw new Error("diff needs at least one capture on each side");
  const notes: string[] = [];
  const captures = { before: captureInfo(input.before, "before", notes), after: captureInfo(input.after, "after", notes) };
  notes.push(...collectorNotes(input.before, input.after));

  const axesNotCompared: { axis: string; reason: string }[] = [];
  const work: AxisWork[] = [];
  for (const axis of axesOf([...input.before, ...input.after])) {
    const outcome = buildAxisMatrix(input, axis);
    if ("notCompared" in outcome) axesNotCompared.push(outcome.notCompared);
    else work.push(fitAxis(outcome.matrix, s, notes, opts.normalisation));
  }

  const promises = new Map(work.map((w) => [w, promiseOf(w, work, s)]));
  const { run: verdictRun, roles } = verdictRunWithRoles(work, s, (w) => promises.get(w)!.share ?? PROMISE_SHARES[PROMISE_SHARES.length - 1]!);
  // The other normalisations, reported beside it (their flags never make the verdict).
  const byNorm = new Map(ALL_NORMS.map((n) => [n, weightedHolmByFamily(work, (w) => w.fits.find((p) => p.norm === n), s).byAxis]));
  const changes = work.flatMap((w) => axisChanges(w, verdictRun.byAxis.get(w)!, byNorm, roles.get(w)!, s));
  // Causes first, then secondary changes, then the rest by evidence.
  const rank = (c: (typeof changes)[number]) => (c.role === "cause" ? 2 : c.role === "secondary" ? 1 : 0);
  changes.sort((a, b) => rank(b) - rank(a) || a.p - b.p || Math.abs(b.relative_change) - Math.abs(a.relative_change));
  for (const w of work) {
    const p = promises.get(w)!;
    w.report.dispersion = dispersionReport(w.verdict, w.report.captures.before, w.report.captures.after, w.report.dispersion.source === "prior");
    w.report.promise = { share: p.share, power: p.power, ...(p.share === null ? { equivalent: false, wide: [] } : equivalence(w, p.share, s.detectEffect)) };
    w.report.power = p.power;
  }
  const seconds = input.after.map((c) => c.meta.measuredSec).filter((x): x is number => x !== undefined && x > 0);
  const remedyFor = decidingRemedy(
    work,
    changes.some((c) => c.flagged),
    s,
    seconds.length ? Math.min(...seconds) : null,
  );

  const axesCompared = work.map((w) => w.report);
  const v = overallVerdict(axesCompared, changes, s, remedyFor);
  if (axesNotCompared.length) notes.push(`axes not compared: ${axesNotCompared.map((a) => a.axis).join(", ")}`);
  const levels = familyLevels(s.q);
  return {
    verdict: v.verdict,
    reason: v.reason,
    normalisation: s.normalisation,
    normalisations_reported: ALL_NORMS.filter((n) => work.some((w) => w.fits.some((p) => p.norm === n))),
    q: s.q,
    min_effect: s.minEffect,
    multiple_testing: {
      method: "Holm",
      weighting: s.weighting,
      tests: work.reduce((t, w) => t + w.tests.distinct.length, 0),
      families: [
        { family: "self", tests: verdictRun.sizes.self, q: levels.self },
        { family: "inclusive", tests: verdictRun.sizes.inclusive, q: levels.inclusive },
      ],
    },
    detect: { effect: s.detectEffect, share: v.promiseShare, power: v.minPower },
    replicates_needed: v.needed,
    remedy: remedyFor,
    axes_compared: axesCompared,
    axes_not_compared: axesNotCompared,
    captures,
    notes,
    changes,
  };
}
