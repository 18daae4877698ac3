// Planning: the chance that a change of `effect` (relative) on a function holding `share` of the
// axis is flagged, given the run-to-run dispersion, the samples per capture, the captures per
// version and the rest of the test family (which sets the multiple-testing bar: weighted Holm's
// first step, weights as in weights.ts). Normal approximation; the t correction is small at the degrees of freedom the
// Satterthwaite formula gives when sampling noise is part of the variance.

import { normalCdf, normalQuantile } from "./distributions.ts";
import { levelFor } from "./weights.ts";

export interface PlanTest {
  /** Mean count per capture. */
  mu: number;
  /** Run-to-run dispersion α. */
  alpha: number;
  /** Covered by the verdict's promise (weights.ts). */
  focus: boolean;
}

export interface PlanInput {
  effect: number;
  /** Mean count per capture of the reference function (share × samples per capture). */
  refMu: number;
  refAlpha: number;
  /** The other tests of the family (a sample of them when there are very many). */
  tests: PlanTest[];
  /** Size of the whole family. */
  m: number;
  q: number;
  weighted: boolean;
}

const MAX_PLAN_TESTS = 800;

export function planTests(all: PlanTest[]): PlanTest[] {
  if (all.length <= MAX_PLAN_TESTS) return all;
  const step = all.length / MAX_PLAN_TESTS;
  return Array.from({ length: MAX_PLAN_TESTS }, (_, i) => all[Math.floor(i * step)]!);
}

export function power(inp: PlanInput, nBefore: number, nAfter: number): number {
  if (!(inp.refMu > 0)) return 0;
  const d = Math.log(1 + inp.effect);
  const se = (mu: number, a: number) => Math.sqrt(1 / (mu * nBefore) + 1 / (mu * nAfter) + a / nBefore + a / nAfter);
  const m = Math.max(1, inp.m);
  const xiRef = d / se(inp.refMu, inp.refAlpha);
  let level = inp.q / m;
  if (inp.weighted && inp.tests.length) {
    const xi = inp.tests.map((t) => d / se(t.mu, t.alpha));
    // levelFor sees a sample of the family: its per-test level scales with the sample, not m.
    level = levelFor(
      xiRef,
      xi,
      inp.tests.map((t) => t.focus),
      (inp.q * (xi.length + 1)) / m,
    );
  }
  return normalCdf(xiRef - normalQuantile(1 - level / 2));
}

/**
 * One tested change's own planning figures, from its standard error under the null (seNull), the
 * level its test gets as the only discovery (weighted Holm's first step) and the captures per
 * side now. Both variance parts (sampling, 1/(λ·Σs); run-to-run, α·Σs²/(Σs)²) shrink as 1/n
 * with n equal-size captures per side, so the standard error at n captures is seNull·√(n₀/n).
 *   power: the chance a detectEffect change of this function is flagged here;
 *   capturesNeeded: for an undecided change, the captures per version at which its observed change,
 *   if real, is flagged with 80% chance, or (below the minimum effect) at which its 95% interval
 *   fits inside ±minimum effect; null when it is decided or more than MAX_CAPTURES would be needed.
 */
export function changePlan(c: { logRatio: number; seNull: number; se: number; level: number; perSide: number; decided: boolean }, s: { detectEffect: number; minEffect: number }): { power: number; capturesNeeded: number | null } {
  const z = normalQuantile(1 - c.level / 2);
  const thr = Math.max(Math.log1p(s.minEffect), z * c.seNull);
  const power = normalCdf((Math.log1p(s.detectEffect) - thr) / c.seNull);
  if (c.decided) return { power, capturesNeeded: null };
  const obs = Math.abs(c.logRatio);
  const minE = Math.log1p(s.minEffect);
  const ratio = obs >= minE ? ((z + Z80) * c.seNull) / obs : (Z95 * c.se) / Math.max(1e-9, minE - obs);
  const n = Math.ceil(c.perSide * ratio * ratio);
  return { power, capturesNeeded: n > MAX_CAPTURES ? null : Math.max(c.perSide + 1, n) };
}

const Z80 = 0.841621;
const Z95 = 1.959964;
/** Beyond this many captures per version a plan is "more than 200". */
export const MAX_CAPTURES = 200;
