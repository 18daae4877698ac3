// The per-function test: is the normalised rate of one function different between two versions?
//
// Model. Within one capture a function's count is Poisson (independent samples). Between captures
// of the same version the true rate itself varies (load, caches, scheduling): the count is
// negative-binomial, Var(y) = μ + α·μ², α = squared run-to-run coefficient of variation.
// With size factors s (normalise.ts) the rate of group g is λ_g = Σy / Σs, and
//   Var(log λ̂_g) ≈ 1/(λ_g·S_g) + α·C_g,   S_g = Σ s,  C_g = Σ s² / S_g²  (= 1/n for equal s).
// The first term shrinks with samples, the second only with replicates — the noise floor.

import { tQuantile, tTwoSided, tUpper } from "./distributions.ts";

export interface Groups {
  /** Column indexes of the before and after captures in the count vectors. */
  before: number[];
  after: number[];
  /** Size factor per capture column. */
  size: number[];
}

/** Method-of-moments α from within-group residuals: unbiased for NB given known sizes. */
export function dispersionMoM(y: ArrayLike<number>, g: Groups): { alpha: number; df: number } {
  let num = 0;
  let den = 0;
  let df = 0;
  for (const cols of [g.before, g.after]) {
    if (cols.length < 2) continue;
    df += cols.length - 1;
    let Y = 0;
    let S = 0;
    for (const c of cols) {
      Y += y[c]!;
      S += g.size[c]!;
    }
    const lam = Y / S;
    for (const c of cols) {
      const mu = g.size[c]! * lam;
      const h = g.size[c]! / S;
      const r = y[c]! - mu;
      num += r * r - mu * (1 - h);
      den += mu * mu * (1 - h);
    }
  }
  if (df === 0 || den <= 0) return { alpha: NaN, df };
  return { alpha: num / den, df };
}

export interface RateTest {
  /** log(after rate / before rate) */
  logRatio: number;
  /** Standard error under H0 (pooled rate) and for the interval (group rates). */
  seNull: number;
  se: number;
  p: number;
  lo: number;
  hi: number;
  /** Satterthwaite degrees of freedom of the variance (the Poisson part is known exactly). */
  df: number;
}

/**
 * Degrees of freedom of V = P + αK where P (Poisson) is exact and α̂ carries dfAlpha:
 * Satterthwaite's V² / ((αK)² / dfAlpha). When sampling noise dominates, the test is ~normal;
 * when run-to-run noise dominates, it is a t with the dispersion estimate's df.
 */
export function satterthwaite(v: number, alphaPart: number, dfAlpha: number): number {
  if (!Number.isFinite(dfAlpha) || alphaPart <= 0) return Infinity;
  return (v * v * dfAlpha) / (alphaPart * alphaPart);
}

function sums(y: ArrayLike<number>, cols: number[], size: number[]) {
  let Y = 0;
  let S = 0;
  let S2 = 0;
  for (const c of cols) {
    Y += y[c]!;
    S += size[c]!;
    S2 += size[c]! * size[c]!;
  }
  return { Y, S, C: S2 / (S * S) };
}

/**
 * dfFloor: the replicate degrees of freedom. Estimating the whole variance (sampling + run-to-run)
 * from the replicates alone would give exactly that many; shrinking α toward the pool only adds
 * information, so the test never has fewer — Satterthwaite alone would, when α̂ is small and noisy.
 */
export function rateTest(y: ArrayLike<number>, g: Groups, alpha: number, dfAlpha: number, dfFloor = 0): RateTest {
  const b = sums(y, g.before, g.size);
  const a = sums(y, g.after, g.size);
  // +0.5 keeps a function that vanished (or appeared) finite; its effect is negligible at real counts.
  const logRatio = Math.log((a.Y + 0.5) / a.S) - Math.log((b.Y + 0.5) / b.S);
  const lam0 = (a.Y + b.Y + 1) / (a.S + b.S);
  const vNull = 1 / (lam0 * a.S) + 1 / (lam0 * b.S) + alpha * (a.C + b.C);
  const v = 1 / (a.Y + 0.5) + 1 / (b.Y + 0.5) + alpha * (a.C + b.C);
  const seNull = Math.sqrt(vNull);
  const se = Math.sqrt(v);
  const aPart = alpha * (a.C + b.C);
  const df = Math.max(dfFloor, satterthwaite(vNull, aPart, dfAlpha));
  const p = tTwoSided(logRatio / seNull, df);
  const t975 = tQuantile(0.975, Math.max(dfFloor, satterthwaite(v, aPart, dfAlpha)));
  return { logRatio, seNull, se, p, lo: logRatio - t975 * se, hi: logRatio + t975 * se, df };
}

/**
 * One later after-replicate alone against the whole before side, one-sided in `direction`:
 * the confirmation window's question "does this replicate show the change again?".
 */
export function replicateAgrees(y: ArrayLike<number>, col: number, g: Groups, alpha: number, dfAlpha: number, direction: 1 | -1, level: number, dfFloor = 0): boolean {
  const b = sums(y, g.before, g.size);
  const s = g.size[col]!;
  const L = Math.log((y[col]! + 0.5) / s) - Math.log((b.Y + 0.5) / b.S);
  const lam0 = (y[col]! + b.Y + 1) / (s + b.S);
  const v = 1 / (lam0 * s) + 1 / (lam0 * b.S) + alpha * (1 + b.C);
  return tUpper((direction * L) / Math.sqrt(v), Math.max(dfFloor, satterthwaite(v, alpha * (1 + b.C), dfAlpha))) < level;
}
