// Planning: the chance of flagging a change of `effect` (relative) on a function holding `share`
// of a capture of `samples` counts, with n captures per version, run-to-run dispersion α, and
// the multiple-testing burden of m tests (BY's first threshold — the bar a lone change must clear).

import { normalCdf, tQuantile } from "./distributions.ts";
import { byFirstThreshold } from "./multiple-testing.ts";
import { satterthwaite } from "./rate-test.ts";

export interface PowerInput {
  effect: number;
  share: number;
  samples: number;
  alpha: number;
  tests: number;
  q: number;
  priorDf: number;
  /** Degrees of freedom when α is the prior (no replicates): Infinity. */
  usePrior: boolean;
}

export function power(inp: PowerInput, nBefore: number, nAfter: number): number {
  const y = inp.share * inp.samples;
  if (!(y > 0)) return 0;
  const delta = Math.log(1 + inp.effect);
  const v = 1 / (nBefore * y) + 1 / (nAfter * y * (1 + inp.effect)) + inp.alpha / nBefore + inp.alpha / nAfter;
  const replicated = nBefore + nAfter > 2 && !inp.usePrior;
  const d = nBefore + nAfter - 2;
  const aPart = inp.alpha / nBefore + inp.alpha / nAfter;
  const df = replicated ? satterthwaite(v, aPart, (d + inp.priorDf) ** 2 / d) : Infinity;
  const thr = tQuantile(1 - byFirstThreshold(Math.max(1, inp.tests), inp.q) / 2, df);
  return normalCdf(delta / Math.sqrt(v) - thr);
}

/** Smallest n captures per version (equal on both sides) reaching `target` power; null above 200. */
export function replicatesNeeded(inp: PowerInput, target: number): number | null {
  for (let n = 1; n <= 200; n++) {
    const p = power({ ...inp, usePrior: n === 1 ? inp.usePrior : false }, n, n);
    if (p >= target) return n;
  }
  return null;
}
