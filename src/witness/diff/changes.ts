// Stage 5 of the diff: each tested function's change under the verdict normalisation (with the
// others beside it), its role (causes.ts), its confirmation by a later after-replicate and its own power.

import type { Normalisation } from "../stats/normalise.ts";
import { replicateAgrees } from "../stats/rate-test.ts";
import { tQuantile } from "../stats/distributions.ts";
import { changePlan } from "../stats/power.ts";
import type { AxisReport, Change, Side } from "../diff-result.ts";
import type { AxisMatrix, Hypothesis, TestSet } from "./axis-matrix.ts";
import type { FittedTest, NormalisationFit } from "./normalisation-fit.ts";
import type { HolmOutcome } from "./holm-families.ts";
import type { DiffSettings } from "./settings.ts";
import type { Roles } from "./causes.ts";

/** Everything the diff knows about one compared axis. */
export interface AxisWork {
  report: AxisReport;
  matrix: AxisMatrix;
  tests: TestSet;
  fits: NormalisationFit[];
  /** The normalisation the verdict uses on this axis. */
  verdict: NormalisationFit;
}

/** A function's count on one side: mean per capture, share of the axis, rate per measured second. */
export function sideSummary(m: AxisMatrix, y: Float64Array, cs: number[]): Side {
  let count = 0;
  let axisTotal = 0;
  let sec = 0;
  let hasSec = true;
  for (const c of cs) {
    count += y[c]! * m.quanta[c]!;
    axisTotal += m.totals[c]! * m.quanta[c]!;
    const s = m.seconds[c];
    if (s === undefined || !(s > 0)) hasSec = false;
    else sec += s;
  }
  return { value: count / cs.length, share: axisTotal > 0 ? count / axisTotal : 0, rate: hasSec ? count / sec : null };
}

/** A flagged change is confirmed when some later after-replicate alone agrees in direction (Bonferroni over them). */
export function confirmation(y: Float64Array, fit: NormalisationFit, t: FittedTest): "confirmed" | "suspect" {
  const later = fit.groups.after.slice(1);
  const dir: 1 | -1 = t.r.logRatio > 0 ? 1 : -1;
  const ok = later.some((c) => replicateAgrees(y, c, fit.groups, fit.alpha0, t.phi, t.df, dir, 0.05 / Math.max(1, later.length)));
  return later.length > 0 && ok ? "confirmed" : "suspect";
}

/** changed: flagged; secondary: cleared only through causes; unchanged: the interval lies within ±min effect; insufficient: neither. */
export function changeVerdict(role: Change["role"], lo: number, hi: number, minEffect: number): Change["verdict"] {
  if (role === "cause") return "changed";
  if (role === "secondary") return "secondary";
  return lo >= -minEffect / (1 + minEffect) && hi <= minEffect ? "unchanged" : "insufficient";
}

function change(w: AxisWork, h: Hypothesis, verdictRun: HolmOutcome, byNorm: Map<Normalisation, Map<AxisWork, HolmOutcome>>, roles: Roles, s: Pick<DiffSettings, "minEffect" | "detectEffect">): Change {
  const minEffect = s.minEffect;
  const fit = w.verdict;
  const t = fit.tests[h.key]!;
  const role = verdictRun.flagged[h.key]! ? (roles.role.get(h.fn) ?? "cause") : null;
  const flagged = role === "cause";
  const logRatio = t.r.logRatio;
  const lo = Math.expm1(t.r.lo);
  const hi = Math.expm1(t.r.hi);
  const normalisations: Change["normalisations"] = {};
  for (const other of w.fits) {
    const tt = other.tests[h.key]!;
    normalisations[other.norm] = {
      relative_change: Math.expm1(tt.r.logRatio),
      interval: [Math.expm1(tt.r.lo), Math.expm1(tt.r.hi)],
      p: tt.r.p,
      flagged: byNorm.get(other.norm)!.get(w)!.flagged[h.key]!,
    };
  }
  // The bar this test must clear when it is the only discovery: weighted Holm's first step.
  const zThr = tQuantile(1 - verdictRun.level[h.key]! / 2, t.r.df);
  const verdict = changeVerdict(role, lo, hi, minEffect);
  const perSide = Math.max(1, Math.min(fit.groups.before.length, fit.groups.after.length));
  const plan = changePlan({ logRatio, seNull: t.r.seNull, se: t.r.se, level: verdictRun.level[h.key]!, perSide, decided: verdict !== "insufficient" }, s);
  return {
    function: w.matrix.names[h.fn]!,
    axis: w.report.axis,
    kind: h.kind,
    flagged,
    role,
    explained_by: (roles.explainedBy.get(h.fn) ?? []).map((f) => w.matrix.names[f]!),
    verdict,
    direction: logRatio >= 0 ? "up" : "down",
    confirmation: role ? confirmation(h.y, fit, t) : null,
    unit: w.report.unit,
    before: sideSummary(w.matrix, h.y, fit.groups.before),
    after: sideSummary(w.matrix, h.y, fit.groups.after),
    relative_change: Math.expm1(logRatio),
    interval: [lo, hi],
    p: t.r.p,
    adjusted_p: verdictRun.adjusted[h.key]!,
    noise_floor: Math.max(minEffect, Math.expm1(zThr * t.r.seNull)),
    dispersion: t.alpha,
    power: plan.power,
    captures_needed: plan.capturesNeeded,
    normalisations,
  };
}

/** One axis's changes, in hypothesis order; fills the axis report's flag counts. */
export function axisChanges(w: AxisWork, verdictRun: HolmOutcome, byNorm: Map<Normalisation, Map<AxisWork, HolmOutcome>>, roles: Roles, s: Pick<DiffSettings, "minEffect" | "detectEffect">): Change[] {
  for (const fit of w.fits) {
    const f = byNorm.get(fit.norm)!.get(w)!.flagged;
    w.report.flagged_by_normalisation[fit.norm] = w.tests.hyps.filter((h) => f[h.key]).length;
  }
  const changes = w.tests.hyps.map((h) => change(w, h, verdictRun, byNorm, roles, s));
  w.report.flagged = changes.filter((c) => c.role === "cause").length;
  w.report.secondary = changes.filter((c) => c.role === "secondary").length;
  return changes;
}
