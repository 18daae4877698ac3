// What a capture can promise. The verdict's `unchanged` says "no function above S of the time
// changed by more than E" (E = detectEffect, 10%), and S is what this design supports: the
// smallest share on PROMISE_SHARES at which a change of E would be flagged with targetPower
// (80%), given the samples, the replicates, the measured noise and the rest of the test family.
// S is computed from pooled counts and dispersion only, before any direction is looked at, so the
// Holm weights may follow it (they spend the budget on the functions the promise covers).
// Beyond the last share nothing useful can be promised: the verdict is `insufficient`, and says
// which capture would decide (captures per version, or longer / denser captures).

import { planTests, power, type PlanInput, type PlanTest } from "../stats/power.ts";
import { familyLevels, isFocus } from "./holm-families.ts";
import type { AxisWork } from "./changes.ts";
import type { DiffSettings } from "./settings.ts";
import { priorScale } from "../stats/squeeze.ts";
import { tQuantile } from "../stats/distributions.ts";
import { FOCUS_MARGIN } from "../stats/weights.ts";

/** The shares a promise may name, smallest first. */
export const PROMISE_SHARES = [0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1];

type PlanSettings = Pick<DiffSettings, "q" | "detectEffect" | "targetPower" | "weighting" | "detectShare">;

/** The own-cost family as the planner sees it, with the focus drawn at `share`. */
function family(work: AxisWork[], share: number, scale = 1): PlanTest[] {
  const all: PlanTest[] = [];
  for (const w of work) {
    const n = w.report.captures.before + w.report.captures.after;
    w.tests.distinct.forEach((y, i) => {
      if (!w.tests.ownKeys.has(i)) return;
      all.push({ mu: (scale * y.reduce((a, b) => a + b, 0)) / n, alpha: w.verdict.tests[i]!.alpha, focus: isFocus(y, w.tests.sumT, share) });
    });
  }
  return planTests(all);
}

/** The planning input for a function of `share` on axis w (scale: samples per capture × scale). */
function planInput(w: AxisWork, work: AxisWork[], share: number, s: PlanSettings, scale = 1): PlanInput {
  const n = w.report.captures.before + w.report.captures.after;
  const refMu = (scale * share * w.tests.sumT) / n;
  // The reference function is as noisy as the pool after moderation at its size.
  const s02 = w.verdict.variance ? priorScale(w.verdict.variance, Math.log(Math.max(refMu / scale, 1e-9))) : 1;
  const ownTests = work.reduce((t, x) => t + [...x.tests.ownKeys].length, 0);
  return {
    effect: s.detectEffect,
    refMu,
    refAlpha: Math.max(0, s02 * (1 / refMu + w.verdict.alpha0) - 1 / refMu),
    tests: family(work, share, scale),
    m: ownTests + 1,
    q: familyLevels(s.q).self,
    weighted: s.weighting !== "uniform",
  };
}

export interface Promise {
  /** The smallest share whose change of detectEffect is flagged with targetPower; null: none up to the last. */
  share: number | null;
  /** The power at that share (at the last share when none). */
  power: number;
}

/** The promise axis w supports with nB and nA captures (scale: samples per capture × scale). */
export function promiseOf(w: AxisWork, work: AxisWork[], s: PlanSettings, at?: { n?: number; scale?: number }): Promise {
  const nB = at?.n ?? w.report.captures.before;
  const nA = at?.n ?? w.report.captures.after;
  if (s.weighting === "detectability") {
    // Today's design (kept for comparison in bench/): focus fixed at detectShare.
    const p = power(planInput(w, work, s.detectShare, s, at?.scale), nB, nA);
    return { share: p >= s.targetPower ? s.detectShare : null, power: p };
  }
  let last = 0;
  for (const share of PROMISE_SHARES) {
    last = power(planInput(w, work, share, s, at?.scale), nB, nA);
    if (last >= s.targetPower) return { share, power: last };
  }
  return { share: null, power: last };
}

export interface Remedy {
  /** Captures per version (at today's capture length) that would reach a promise at `share`; null above 200. */
  captures: number | null;
  /** How many times today's samples per capture (longer, or at a higher frequency) would, at today's captures per version; null above 64×. */
  samplesTimes: number | null;
  share: number;
}

/** What capture would let axis w promise a detectEffect change at `share`. */
export function remedy(w: AxisWork, work: AxisWork[], s: PlanSettings, share: number): Remedy {
  const ok = (at: { n?: number; scale?: number }) => {
    const p = promiseOf(w, work, s, at);
    return p.share !== null && p.share <= share;
  };
  let captures: number | null = null;
  for (let n = Math.max(w.report.captures.before, w.report.captures.after) + 1; n <= 200 && captures === null; n = n < 12 ? n + 1 : Math.ceil(n * 1.25)) if (ok({ n })) captures = n;
  let samplesTimes: number | null = null;
  for (const k of [1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]) if (samplesTimes === null && ok({ scale: k })) samplesTimes = k;
  return { captures, samplesTimes, share };
}

/**
 * The equivalence test behind `unchanged` (two one-sided tests, TOST): every own-cost function
 * holding at least `share` of the axis has its 90% interval inside ±detectEffect. The claim is
 * that all of them are equivalent, so no multiplicity adjustment is due (an intersection–union
 * test: each must pass at 5% on its own).
 */
export function equivalence(w: AxisWork, share: number, effect: number): { equivalent: boolean; wide: string[] } {
  const bound = Math.log1p(effect);
  const wide = new Set<string>();
  for (const h of w.tests.hyps) {
    if (!h.own || !isFocus(h.y, w.tests.sumT, share / FOCUS_MARGIN)) continue;
    const r = w.verdict.tests[h.key]!.r;
    if (Math.abs(r.logRatio) + tQuantile(0.95, r.df) * r.se > bound) wide.add(w.matrix.names[h.fn]!);
  }
  return { equivalent: wide.size === 0, wide: [...wide] };
}

/** Captures per version at which the widest of `wide` would pass its equivalence test, were it unchanged; null above 200. */
function capturesForEquivalence(w: AxisWork, wide: string[], effect: number): number | null {
  const bound = Math.log1p(effect);
  const n0 = Math.min(w.report.captures.before, w.report.captures.after);
  let need = n0 + 1;
  for (const h of w.tests.hyps) {
    if (h.kind !== "self" || !wide.includes(w.matrix.names[h.fn]!)) continue;
    const r = w.verdict.tests[h.key]!.r;
    need = Math.max(need, Math.ceil(n0 * ((1.645 * r.se) / bound) ** 2 * 1.5));
  }
  return need > 200 ? null : need;
}

/**
 * What capture would decide, when nothing is flagged and the verdict cannot say `unchanged`: for
 * the first axis (cpu first) without a promise, the captures per version or the samples per
 * capture (× duration or frequency) that would let it promise a detectEffect change at the last
 * promise share; for an axis whose promise holds but some intervals are too wide, the captures per
 * version that would narrow them. Null when the verdict is decided.
 */
export function decidingRemedy(work: AxisWork[], flaggedAny: boolean, s: PlanSettings, seconds: number | null): { share: number; captures: number | null; samples_times: number | null; duration_sec: number | null } | null {
  if (flaggedAny || work.length === 0) return null;
  const ordered = [...work].sort((a, b) => Number(b.report.axis === "cpu") - Number(a.report.axis === "cpu"));
  const unpromised = ordered.find((w) => w.report.promise.share === null);
  if (unpromised) {
    const share = PROMISE_SHARES[PROMISE_SHARES.length - 1]!;
    const r = remedy(unpromised, work, s, share);
    unpromised.report.replicates_needed = r.captures;
    return { share, captures: r.captures, samples_times: r.samplesTimes, duration_sec: r.samplesTimes !== null && seconds !== null ? Math.ceil(r.samplesTimes * seconds) : null };
  }
  const wide = ordered.find((w) => !w.report.promise.equivalent);
  if (!wide) return null;
  const captures = capturesForEquivalence(wide, wide.report.promise.wide, s.detectEffect);
  wide.report.replicates_needed = captures;
  return { share: wide.report.promise.share!, captures, samples_times: null, duration_sec: null };
}
