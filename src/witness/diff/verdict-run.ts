// Stage 4–5 of the diff as the verdict sees it: weighted Holm over every axis under its own
// normalisation, the roles of what cleared the noise floor (causes.ts), and, where causes were
// found on a median-ratio axis, the same again with the size factors estimated without them.

import { weightedHolmByFamily, type HolmOutcome, type Family } from "./holm-families.ts";
import { assignRoles, type Roles } from "./causes.ts";
import { fitNormalisation, sizeFactors } from "./normalisation-fit.ts";
import type { AxisWork } from "./changes.ts";
import type { DiffSettings } from "./settings.ts";

/** The cause the data are surest of: the largest |z| among its flagged tests. */
function strongestCause(w: AxisWork, roles: Roles, run: HolmOutcome, done: Set<number>): number | null {
  let best: number | null = null;
  let bestZ = 0;
  for (const h of w.tests.hyps) {
    if (!run.flagged[h.key] || roles.role.get(h.fn) !== "cause" || done.has(h.fn)) continue;
    const r = w.verdict.tests[h.key]!.r;
    const z = Math.abs(r.logRatio / r.seNull);
    if (z > bestZ) [best, bestZ] = [h.fn, z];
  }
  return best;
}

/**
 * Iterative exclusion: while causes are found on an axis whose verdict uses median-ratio, the
 * surest of them is set aside — its call paths leave the size factors — and the axis refitted. A
 * weighted median sits inside the unchanged work, but off its centre when a large changed part lies
 * on one side, and then its bias flags the siblings: setting the change aside takes the bias out.
 * Never past half the work (a cause at the root says the total moved, not where the unchanged work
 * is), at most MAX_ROUNDS rounds.
 */
function refitWithout(w: AxisWork, excluded: Set<number>, s: DiffSettings): boolean {
  const mass = (us: typeof w.matrix.units) => us.reduce((t, u) => t + u.y.reduce((a, b) => a + b, 0), 0);
  if (mass(w.matrix.units.filter((u) => !u.path.some((f) => excluded.has(f)))) * 2 < mass(w.matrix.units)) return false;
  const size = sizeFactors(w.matrix, excluded)["median-ratio"];
  if (!size) return false;
  const fit = fitNormalisation("median-ratio", size, w.matrix.cols, w.tests, { usePrior: w.report.dispersion.source === "prior", priorAlpha: s.priorDispersion });
  w.fits = w.fits.map((f) => (f.norm === "median-ratio" ? fit : f));
  w.verdict = fit;
  return true;
}

const MAX_ROUNDS = 3;

export function verdictRunWithRoles(
  work: AxisWork[],
  s: DiffSettings,
  focusShare: (w: AxisWork) => number,
): { run: { byAxis: Map<AxisWork, HolmOutcome>; sizes: Record<Family, number> }; roles: Map<AxisWork, Roles> } {
  const once = () => {
    const run = weightedHolmByFamily(work, (w) => w.verdict, s, s.weighting === "promise" ? focusShare : undefined);
    return { run, roles: new Map(work.map((w) => [w, assignRoles(w.matrix, w.tests, w.verdict, run.byAxis.get(w)!, s.minEffect)])) };
  };
  let out = once();
  const excluded = new Map(work.map((w) => [w, new Set<number>()]));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let refitted = false;
    for (const w of work) {
      if (w.verdict.norm !== "median-ratio") continue;
      const next = strongestCause(w, out.roles.get(w)!, out.run.byAxis.get(w)!, excluded.get(w)!);
      if (next === null) continue;
      const trial = new Set([...excluded.get(w)!, next]);
      if (refitWithout(w, trial, s)) {
        excluded.set(w, trial);
        refitted = true;
      }
    }
    if (!refitted) break;
    out = once();
  }
  return out;
}
