// diffCaptures: what changed between two versions, per function, per axis — and how sure we are.
// The statistical design is explained in README.md ("witness: the version diff"); in short:
//   1. per axis, self and inclusive counts of every function in every capture;
//   2. size factors (median-ratio for the verdict; share and rate reported beside it);
//   3. run-to-run dispersion: the pool's α0 from the replicates, each function's departure from it
//      (quasi-dispersion) moderated across functions; a conservative prior with no replicates;
//   4. a t-test of the log rate ratio with the function's variance moderated across functions,
//      weighted-Holm-adjusted across every tested function×kind×axis (family-wise error ≤ q),
//      flagged when adjusted p ≤ 0.05 and the change is at least the minimum effect;
//   5. a confirmation window over later after-replicates, a power calculation for the verdict.

import { instrumentation, type Capture } from "./model.ts";
import { functionTotals } from "./aggregate.ts";
import { isPlaceholder } from "./identity.ts";
import { medianRatioFactors, rateFactors, shareFactors, type Normalisation } from "./stats/normalise.ts";
import { dispersionMoM, quasiDispersion, rateTest, replicateAgrees, type Groups } from "./stats/rate-test.ts";
import { holmAdjust } from "./stats/multiple-testing.ts";
import { tQuantile } from "./stats/distributions.ts";
import { planTests, power, replicatesNeeded, type PlanTest } from "./stats/power.ts";
import { detectabilityWeights, FOCUS_MARGIN } from "./stats/weights.ts";
import { estimatePrior, STRONG_COUNT, type DispersionPrior } from "./stats/dispersion-pool.ts";
import { fitPrior, squeeze, type VariancePrior } from "./stats/squeeze.ts";

export type { Normalisation } from "./stats/normalise.ts";
export type { DiffOptions, DiffResult, Change, AxisReport, Side, NormalisedChange, CaptureInfo } from "./diff-result.ts";
import type { DiffOptions, DiffResult, Change, AxisReport, Side, CaptureInfo } from "./diff-result.ts";

const ALL_NORMS: Normalisation[] = ["median-ratio", "share", "rate"];

/** Counting quantum per unit: ns axes are counted in 1 ms units so the Poisson term is not ~0. */
function quantum(unit: string): number {
  return unit === "nanoseconds" ? 1e6 : unit === "bytes" ? 1024 : 1;
}

function label(c: Capture, side: string, i: number): string {
  return c.meta.name ?? `${side}[${i}]`;
}

interface Hypothesis {
  fn: number;
  kind: "self" | "inclusive";
  y: Float64Array;
  key: number;
}

interface PerNorm {
  norm: Normalisation;
  groups: Groups;
  alpha0: number;
  prior: DispersionPrior;
  variance: VariancePrior | null;
  tests: { phi: number; df: number; alpha: number; r: ReturnType<typeof rateTest> }[];
}

export function diffCaptures(input: { before: Capture[]; after: Capture[] }, opts: DiffOptions = {}): DiffResult {
  const norm = opts.normalisation ?? "median-ratio";
  const q = opts.q ?? 0.05;
  const minEffect = opts.minEffect ?? 0.05;
  const minShare = opts.minShare ?? 0.001;
  const minCount = opts.minCount ?? 5;
  const priorAlpha = opts.priorDispersion ?? 0.01;
  const detectEffect = opts.detectEffect ?? 0.1;
  const detectShare = opts.detectShare ?? 0.01;
  const targetPower = opts.targetPower ?? 0.8;
  const weighting = opts.weighting ?? "detectability";
  if (input.before.length === 0 || input.after.length === 0) throw new Error("diff needs at least one capture on each side");

  const notes: string[] = [];
  const info = (cs: Capture[], side: string): CaptureInfo[] =>
    cs.map((c, i) => {
      if (c.meta.partial) notes.push(`${side} capture ${label(c, side, i)} is partial: ${c.meta.partialReason ?? "collector stopped early"}`);
      return {
        name: label(c, side, i),
        role: i === 0 ? "head" : "replicate",
        partial: c.meta.partial,
        measured_sec: c.meta.measuredSec ?? null,
        instrumentation: instrumentation(c),
      };
    });
  const captures = { before: info(input.before, "before"), after: info(input.after, "after") };

  const axesNotCompared: { axis: string; reason: string }[] = [];
  const allAxes = new Set<string>();
  for (const c of [...input.before, ...input.after]) {
    for (const a of Object.keys(c.axes)) allAxes.add(a);
    for (const m of c.missing) allAxes.add(m.axis);
  }

  interface AxisWork {
    report: AxisReport;
    names: string[];
    hyps: Hypothesis[];
    distinct: Float64Array[];
    perNorm: PerNorm[];
    /** The normalisation the verdict uses on this axis. */
    verdict: PerNorm;
    /** Σ over captures of the axis total, in counting quanta: a test's pooled share is Σy / this. */
    sumT: number;
    side: (y: Float64Array, cs: number[]) => Side;
    selfKeys: Set<number>;
  }
  const work: AxisWork[] = [];

  for (const axis of [...allAxes].sort()) {
    const why = (c: Capture, side: string, i: number) => {
      const m = c.missing.find((x) => x.axis === axis);
      return `absent from ${side} ${i === 0 ? "head" : "replicate"} ${label(c, side, i)}${m ? `: ${m.reason}` : ""}`;
    };
    const headB = input.before[0]!;
    const headA = input.after[0]!;
    if (!headB.axes[axis] || !headA.axes[axis]) {
      const reasons = [];
      if (!headB.axes[axis]) reasons.push(why(headB, "before", 0));
      if (!headA.axes[axis]) reasons.push(why(headA, "after", 0));
      axesNotCompared.push({ axis, reason: reasons.join("; ") });
      continue;
    }
    const excluded: { capture: string; reason: string }[] = [];
    const pick = (cs: Capture[], side: string) =>
      cs.filter((c, i) => {
        if (c.axes[axis]) return true;
        excluded.push({ capture: label(c, side, i), reason: why(c, side, i) });
        return false;
      });
    const B = pick(input.before, "before");
    const A = pick(input.after, "after");
    const caps = [...B, ...A];
    const N = caps.length;
    const unit = headB.axes[axis]!.unit;
    const qu = quantum(unit);

    // Function totals, aligned on one name index across captures.
    const index = new Map<string, number>();
    const names: string[] = [];
    const totals = caps.map((c) => functionTotals(c.axes[axis]!, index, names));
    const F = names.length;
    const self = Array.from({ length: F }, () => new Float64Array(N));
    const incl = Array.from({ length: F }, () => new Float64Array(N));
    totals.forEach((t, c) => {
      for (let f = 0; f < t.self.length; f++) {
        if (t.self[f]) self[f]![c] = t.self[f]! / qu;
        if (t.inclusive[f]) incl[f]![c] = t.inclusive[f]! / qu;
      }
    });
    const T = totals.map((t) => t.total / qu);
    const empty = caps.findIndex((_, c) => !(T[c]! > 0));
    if (empty >= 0) {
      axesNotCompared.push({ axis, reason: `capture ${label(caps[empty]!, empty < B.length ? "before" : "after", empty < B.length ? empty : empty - B.length)} has no samples on this axis` });
      continue;
    }
    const seconds = caps.map((c) => c.meta.measuredSec);

    const cols = { before: B.map((_, i) => i), after: A.map((_, i) => B.length + i) };
    const factors: Partial<Record<Normalisation, number[]>> = { share: shareFactors(T) };
    const rate = rateFactors(seconds);
    if (rate) factors.rate = rate;
    const mr = medianRatioFactors(self, N);
    if (mr) factors["median-ratio"] = mr;
    let used: Normalisation = norm;
    let normNote: string | undefined;
    if (!factors[used]) {
      used = "share";
      normNote =
        norm === "rate"
          ? "rate normalisation needs the measured time of every capture (folded input has none); share used instead"
          : "fewer than 5 functions present in every capture: median-ratio impossible, share used instead";
      notes.push(`${axis}: ${normNote}`);
    }

    // Hypotheses: every function's self and inclusive count vector above the testing floor.
    // Identical vectors (a leaf's self = inclusive, a chain of single callers) are one test.
    const sumT = T.reduce((a, b) => a + b, 0);
    const hyps: Hypothesis[] = [];
    const keyOf = new Map<string, number>();
    const distinct: Float64Array[] = [];
    let untested = 0;
    const selfKeys = new Set<number>();
    for (let f = 0; f < F; f++) {
      if (isPlaceholder(names[f]!)) continue;
      for (const [kind, y] of [["self", self[f]!], ["inclusive", incl[f]!]] as const) {
        let s = 0;
        for (let c = 0; c < N; c++) s += y[c]!;
        if (s === 0 && kind === "self") continue;
        if (s / sumT < minShare || s / N < minCount) {
          if (kind === "inclusive") untested++;
          continue;
        }
        const k = Array.prototype.join.call(y, ",");
        let key = keyOf.get(k);
        if (key === undefined) {
          key = distinct.length;
          distinct.push(y);
          keyOf.set(k, key);
        }
        hyps.push({ fn: f, kind, y, key });
        if (kind === "self") selfKeys.add(key);
      }
    }

    const usePrior = B.length < 2 && A.length < 2;
    const perNorm: PerNorm[] = [];
    for (const n of ALL_NORMS) {
      const size = factors[n];
      if (!size) continue;
      const groups: Groups = { before: cols.before, after: cols.after, size };
      const moms = distinct.map((y) => dispersionMoM(y, groups));
      const mus = distinct.map((y) => {
        let t = 0;
        for (let c = 0; c < N; c++) t += y[c]! / size[c]!;
        return t / N;
      });
      // The prior comes from self vectors only: an inclusive count sums many self counts, so its
      // run-to-run noise averages out and would drag the pool below what a single function shows.
      const atoms = distinct.map((_, i) => ({ alpha: moms[i]!.alpha, df: moms[i]!.df, mu: mus[i]! })).filter((_, i) => selfKeys.has(i) || selfKeys.size < 3);
      const prior: DispersionPrior = usePrior ? { alpha0: priorAlpha, atoms: 0 } : estimatePrior(atoms, priorAlpha);
      const alpha0 = prior.alpha0;
      // Each function's own departure from α0 (quasi-dispersion), moderated across the self
      // vectors — the same atoms as α0, for the same reason — then applied to every test.
      // The fit needs one df: the full replicate df (a group of all zeros has none, and such a
      // function is far below STRONG_COUNT anyway).
      const quasi = distinct.map((y) => (usePrior ? { phi: NaN, df: 0 } : quasiDispersion(y, groups, alpha0)));
      const fullDf = quasi.reduce((d, x) => Math.max(d, x.df), 0);
      const atom = (i: number) => (selfKeys.has(i) || selfKeys.size < 3) && quasi[i]!.df === fullDf;
      const fitOn = quasi.filter((_, i) => atom(i) && mus[i]! >= STRONG_COUNT).map((x) => x.phi);
      const fitAll = quasi.filter((_, i) => atom(i)).map((x) => x.phi);
      const variance = usePrior ? null : fitPrior(fitOn.length >= 5 ? fitOn : fitAll, fullDf);
      const tests = distinct.map((y, i) => {
        const sq = variance ? squeeze(quasi[i]!.phi, quasi[i]!.df, variance) : { phi: 1, df: Infinity };
        // The run-to-run α this amounts to at this function's size, for the report.
        const mu = mus[i]!;
        const alpha = Math.max(0, sq.phi * (1 / Math.max(mu, 1e-9) + alpha0) - 1 / Math.max(mu, 1e-9));
        return { phi: sq.phi, df: sq.df, alpha, r: rateTest(y, groups, alpha0, sq.phi, sq.df) };
      });
      perNorm.push({ norm: n, groups, alpha0, prior, variance, tests });
    }

    const side = (y: Float64Array, cs: number[]): Side => {
      let Y = 0;
      let TT = 0;
      let sec = 0;
      let hasSec = true;
      for (const c of cs) {
        Y += y[c]! * qu;
        TT += T[c]! * qu;
        const s = seconds[c];
        if (s === undefined || !(s > 0)) hasSec = false;
        else sec += s;
      }
      return { value: Y / cs.length, share: TT > 0 ? Y / TT : 0, rate: hasSec ? Y / sec : null };
    };

    const verdictNorm = perNorm.find((p) => p.norm === used)!;
    const report: AxisReport = {
      axis,
      unit,
      captures: { before: B.length, after: A.length },
      excluded,
      normalisation: used,
      ...(normNote ? { normalisation_note: normNote } : {}),
      dispersion: {
        source: usePrior ? "prior" : "replicates",
        pooled: verdictNorm.alpha0,
        run_to_run_cv: Math.sqrt(verdictNorm.alpha0),
        moderation: verdictNorm.variance
          ? { prior_scale: verdictNorm.variance.s02, prior_df: Number.isFinite(verdictNorm.variance.d0) ? verdictNorm.variance.d0 : null, loud: verdictNorm.variance.loud }
          : null,
        df: B.length - (B.length > 0 ? 1 : 0) + A.length - (A.length > 0 ? 1 : 0),
        functions_pooled: verdictNorm.prior.atoms,
      },
      tested: hyps.length,
      distinct_tests: distinct.length,
      untested,
      flagged: 0,
      flagged_by_normalisation: {},
      power: 0,
      replicates_needed: null,
    };
    if (usePrior) notes.push(`${axis}: one capture per side — run-to-run dispersion is the conservative prior α = ${priorAlpha} (${Math.round(Math.sqrt(priorAlpha) * 100)}% CV), not measured; add replicates to measure it`);
    if (excluded.length) notes.push(`${axis}: ${excluded.length} replicate(s) without this axis left out of its comparison`);
    work.push({
      report,
      names,
      hyps,
      distinct,
      perNorm,
      verdict: verdictNorm,
      sumT,
      side,
      selfKeys,
    });
  }

  // Multiple testing: weighted Holm over every distinct test of every axis, the weights spending
  // q where the verdict's promise lies (stats/weights.ts). Two families, so inclusive aggregates (a
  // regression moves its own self count *and* the inclusive count of every ancestor: ~20 tests
  // saying one thing) do not take the budget of the places where cost lives. Self counts form one
  // family, inclusive-only aggregates (vectors no function has as self) the other; Bonferroni
  // across them: FWER ≤ q_self + q_inclusive = q.
  const mTotal = work.reduce((t, w) => t + w.distinct.length, 0);
  const delta = Math.log(1 + detectEffect);
  const qFam = { self: q * 0.8, inclusive: q * 0.2 };
  const isFocus = (w: AxisWork, y: Float64Array) => y.reduce((a, b) => a + b, 0) / w.sumT >= FOCUS_MARGIN * detectShare;
  interface Adjusted {
    flagged: boolean[];
    /** On the overall q scale: flagged ⇔ adjusted ≤ q (and the minimum effect). */
    adjusted: number[];
    /** The first-step level of each test (its bar when it is the only discovery). */
    level: number[];
  }
  /** One Holm run per family over the tests `pick` chooses on each axis (one normalisation each). */
  const holm = (pick: (w: AxisWork) => PerNorm | undefined) => {
    const byAxis = new Map<AxisWork, Adjusted>();
    const sizes = { self: 0, inclusive: 0 };
    for (const fam of ["self", "inclusive"] as const) {
      const entries: { w: AxisWork; i: number; p: number; L: number; xi: number; focus: boolean }[] = [];
      for (const w of work) {
        const pn = pick(w);
        if (!pn) continue;
        pn.tests.forEach((t, i) => {
          if (w.selfKeys.has(i) === (fam === "self")) entries.push({ w, i, p: t.r.p, L: t.r.logRatio, xi: delta / t.r.seNull, focus: isFocus(w, w.distinct[i]!) });
        });
      }
      sizes[fam] = entries.length;
      const qf = qFam[fam];
      const weights =
        weighting === "uniform"
          ? entries.map(() => 1)
          : detectabilityWeights(
              entries.map((e) => e.xi),
              entries.map((e) => e.focus),
              qf,
            );
      const adj = holmAdjust(
        entries.map((e) => e.p),
        weights,
      );
      entries.forEach((e, k) => {
        let a = byAxis.get(e.w);
        if (!a) byAxis.set(e.w, (a = { flagged: [], adjusted: [], level: [] }));
        a.flagged[e.i] = adj[k]! <= qf && Math.abs(Math.expm1(e.L)) >= minEffect;
        a.adjusted[e.i] = Math.min(1, (adj[k]! * q) / qf);
        a.level[e.i] = (weights[k]! * qf) / entries.length;
      });
    }
    return { byAxis, sizes };
  };
  // The verdict: each axis under its own normalisation, all in one run — an axis that fell back to
  // share (too few common functions for median-ratio) is still in the same family, not a second one.
  const verdictRun = holm((w) => w.verdict);
  const famSize = verdictRun.sizes;
  // The other normalisations, reported beside it (their flags never make the verdict).
  const byNorm = new Map(ALL_NORMS.map((n) => [n, holm((w) => w.perNorm.find((p) => p.norm === n)).byAxis]));
  // The family as the planner sees it: mean count and dispersion of every test (verdict normalisation).
  const family: PlanTest[] = [];
  for (const w of work) {
    const N = w.report.captures.before + w.report.captures.after;
    w.distinct.forEach((y, i) => {
      if (!w.selfKeys.has(i)) return; // the reference function is a self test: plan in that family
      family.push({ mu: y.reduce((a, b) => a + b, 0) / N, alpha: w.verdict.tests[i]!.alpha, focus: isFocus(w, y) });
    });
  }
  const planned = planTests(family);

  const changes: Change[] = [];
  for (const w of work) {
    const vn = w.verdict;
    const { flagged: flags, adjusted: adj, level } = verdictRun.byAxis.get(w)!;
    for (const pn of w.perNorm) {
      const f = byNorm.get(pn.norm)!.get(w)!.flagged;
      w.report.flagged_by_normalisation[pn.norm] = w.hyps.filter((h) => f[h.key]).length;
    }
    const side = w.side;
    for (const h of w.hyps) {
      const t = vn.tests[h.key]!;
      const flagged = flags[h.key]!;
      const L = t.r.logRatio;
      const lo = Math.expm1(t.r.lo);
      const hi = Math.expm1(t.r.hi);
      const verdict = flagged ? "changed" : lo >= -minEffect / (1 + minEffect) && hi <= minEffect ? "unchanged" : "insufficient";
      let confirmation: Change["confirmation"] = null;
      if (flagged) {
        const later = vn.groups.after.slice(1);
        const dir: 1 | -1 = L > 0 ? 1 : -1;
        const ok = later.some((c) => replicateAgrees(h.y, c, vn.groups, vn.alpha0, t.phi, t.df, dir, 0.05 / Math.max(1, later.length)));
        confirmation = later.length > 0 && ok ? "confirmed" : "suspect";
      }
      const normalisations: Change["normalisations"] = {};
      for (const pn of w.perNorm) {
        const tt = pn.tests[h.key]!;
        normalisations[pn.norm] = {
          relative_change: Math.expm1(tt.r.logRatio),
          interval: [Math.expm1(tt.r.lo), Math.expm1(tt.r.hi)],
          p: tt.r.p,
          flagged: byNorm.get(pn.norm)!.get(w)!.flagged[h.key]!,
        };
      }
      // The bar this test must clear when it is the only discovery: weighted Holm's first step.
      const zThr = tQuantile(1 - level[h.key]! / 2, t.r.df);
      changes.push({
        function: w.names[h.fn]!,
        axis: w.report.axis,
        kind: h.kind,
        flagged,
        verdict,
        direction: L >= 0 ? "up" : "down",
        confirmation,
        unit: w.report.unit,
        before: side(h.y, vn.groups.before),
        after: side(h.y, vn.groups.after),
        relative_change: Math.expm1(L),
        interval: [lo, hi],
        p: t.r.p,
        adjusted_p: adj[h.key]!,
        noise_floor: Math.max(minEffect, Math.expm1(zThr * t.r.seNull)),
        dispersion: t.alpha,
        normalisations,
      });
    }
    w.report.flagged = w.hyps.filter((h) => flags[h.key]).length;
    const nB = w.report.captures.before;
    const nA = w.report.captures.after;
    const refMu = (detectShare * w.sumT) / (nB + nA);
    // The reference function is as noisy as the pool after moderation: α0 scaled by the prior s0².
    const s02 = vn.variance?.s02 ?? 1;
    const pin = {
      effect: detectEffect,
      refMu,
      refAlpha: Math.max(0, s02 * (1 / refMu + vn.alpha0) - 1 / refMu),
      tests: planned,
      m: famSize.self + 1,
      q: qFam.self,
      weighted: weighting === "detectability",
    };
    w.report.power = power(pin, nB, nA);
    w.report.replicates_needed = replicatesNeeded(pin, targetPower);
  }
  changes.sort((a, b) => Number(b.flagged) - Number(a.flagged) || a.p - b.p || Math.abs(b.relative_change) - Math.abs(a.relative_change));

  const axesCompared = work.map((w) => w.report);
  let verdict: DiffResult["verdict"];
  let reason: string;
  let needed: number | null = null;
  const minPower = axesCompared.length ? Math.min(...axesCompared.map((a) => a.power)) : 0;
  const flaggedCount = changes.filter((c) => c.flagged).length;
  if (axesCompared.length === 0) {
    verdict = "insufficient";
    reason = "no axis is present in both head captures";
  } else if (flaggedCount > 0) {
    verdict = "changed";
    reason = `${flaggedCount} function×axis change(s) clear the noise floor (weighted Holm, family-wise error ≤ ${q}) and ≥${Math.round(minEffect * 100)}%`;
  } else if (minPower >= targetPower) {
    verdict = "unchanged";
    reason = `nothing flagged, and a ${Math.round(detectEffect * 100)}% change of a ${detectShare * 100}%-share function would have been flagged with probability ${minPower.toFixed(2)}`;
  } else {
    verdict = "insufficient";
    const ns = axesCompared.map((a) => a.replicates_needed);
    needed = ns.some((n) => n === null) ? null : Math.max(...(ns as number[]));
    reason =
      `nothing flagged, but a ${Math.round(detectEffect * 100)}% change of a ${detectShare * 100}%-share function would be flagged with probability only ${minPower.toFixed(2)}` +
      (needed !== null ? `; ${needed} captures per version would decide` : "; more samples per capture are needed (replicates alone cannot reach the target)");
  }
  if (axesNotCompared.length) notes.push(`axes not compared: ${axesNotCompared.map((a) => a.axis).join(", ")}`);

  return {
    verdict,
    reason,
    normalisation: norm,
    normalisations_reported: ALL_NORMS.filter((n) => work.some((w) => w.perNorm.some((p) => p.norm === n))),
    q,
    min_effect: minEffect,
    multiple_testing: {
      method: "Holm",
      weighting,
      tests: mTotal,
      families: [
        { family: "self", tests: famSize.self, q: qFam.self },
        { family: "inclusive", tests: famSize.inclusive, q: qFam.inclusive },
      ],
    },
    detect: { effect: detectEffect, share: detectShare, power: minPower },
    replicates_needed: needed,
    axes_compared: axesCompared,
    axes_not_compared: axesNotCompared,
    captures,
    notes,
    changes,
  };
}
