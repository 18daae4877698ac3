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

/** Smallest n captures per version (equal on both sides) reaching `target`; null above 200. */
export function replicatesNeeded(inp: PlanInput, target: number): number | null {
  const ok = (n: number) => power(inp, n, n) >= target;
  if (!ok(200)) return null;
  let lo = 0;
  let hi = 1;
  while (!ok(hi)) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (ok(mid)) hi = mid;
    else lo = mid;
  }
  return Math.min(hi, 200);
}
