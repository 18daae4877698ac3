// The per-function test: is the normalised rate of one function different between two versions?
//
// Model. Within one capture a function's count is Poisson (independent samples). Between captures
// of the same version the true rate itself varies (load, caches, scheduling): the count is
// negative-binomial, Var(y) = μ + α·μ², α = squared run-to-run coefficient of variation.
// With size factors s (normalise.ts) the rate of group g is λ_g = Σy / Σs, and
//   Var(log λ̂_g) ≈ 1/(λ_g·S_g) + α·C_g,   S_g = Σ s,  C_g = Σ s² / S_g²  (= 1/n for equal s).
// The first term shrinks with samples, the second only with replicates — the noise floor.
// α0 is the pool's (dispersion-pool.ts); how far one function departs from it is its quasi-dispersion φ
// (below), moderated across functions (squeeze.ts) before it scales that function's variance.

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

/**
 * Quasi-dispersion φ: the Pearson statistic of the replicates against the model (each group's own
 * rate, Var = μ + α0·μ²) over its degrees of freedom — ≈ 1 when the function is as noisy as the
 * pool says, 3 when its run-to-run noise triples the modelled variance. NaN without replicates.
 */
export function quasiDispersion(y: ArrayLike<number>, g: Groups, alpha0: number): { phi: number; df: number } {
  let x2 = 0;
  let df = 0;
  for (const cols of [g.before, g.after]) {
    if (cols.length < 2) continue;
    const { Y, S } = sums(y, cols, g.size);
    if (Y === 0) continue; // all zero: no information about spread
    df += cols.length - 1;
    const lam = Y / S;
    for (const c of cols) {
      const mu = g.size[c]! * lam;
      // Over n − 1 df: the group mean was fitted from these same counts, E[(y − ŷ)²] = V·(1 − h)
      // with leverage h = s_c / S, and Σ(1 − h) = n − 1. (Dividing by (1 − h) as well counted the
      // fit twice: φ came out n/(n − 1) too large — 1.5× with 3 captures per version.)
      x2 += (y[c]! - mu) ** 2 / (mu + alpha0 * mu * mu);
    }
  }
  return df > 0 ? { phi: x2 / df, df } : { phi: NaN, df: 0 };
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
  /** Degrees of freedom of the t reference (Infinity: normal). */
  df: number;
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
 * Variance of a log rate ratio: Poisson part P plus run-to-run part α0·K, scaled by the function's
 * moderated quasi-dispersion φ (squeeze.ts) — but never below P: sampled counts cannot be quieter
 * than their sampling, however closely a few replicates happen to agree.
 */
const scaledVariance = (phi: number, poisson: number, alpha0: number, k: number) => Math.max(phi * (poisson + alpha0 * k), poisson);

/** The scaled variance referred to a t on df degrees of freedom. */
export function rateTest(y: ArrayLike<number>, g: Groups, alpha0: number, phi: number, df: number): RateTest {
  const b = sums(y, g.before, g.size);
  const a = sums(y, g.after, g.size);
  // +0.5 keeps a function that vanished (or appeared) finite; its effect is negligible at real counts.
  const logRatio = Math.log((a.Y + 0.5) / a.S) - Math.log((b.Y + 0.5) / b.S);
  const lam0 = (a.Y + b.Y + 1) / (a.S + b.S);
  const vNull = scaledVariance(phi, 1 / (lam0 * a.S) + 1 / (lam0 * b.S), alpha0, a.C + b.C);
  const v = scaledVariance(phi, 1 / (a.Y + 0.5) + 1 / (b.Y + 0.5), alpha0, a.C + b.C);
  const seNull = Math.sqrt(vNull);
  const se = Math.sqrt(v);
  const p = tTwoSided(logRatio / seNull, df);
  const t975 = tQuantile(0.975, df);
  return { logRatio, seNull, se, p, lo: logRatio - t975 * se, hi: logRatio + t975 * se, df };
}

/**
 * One later after-replicate alone against the whole before side, one-sided in `direction`:
 * the confirmation window's question "does this replicate show the change again?".
 */
export function replicateAgrees(y: ArrayLike<number>, col: number, g: Groups, alpha0: number, phi: number, df: number, direction: 1 | -1, level: number): boolean {
  const b = sums(y, g.before, g.size);
  const s = g.size[col]!;
  const L = Math.log((y[col]! + 0.5) / s) - Math.log((b.Y + 0.5) / b.S);
  const lam0 = (y[col]! + b.Y + 1) / (s + b.S);
  const v = scaledVariance(phi, 1 / (lam0 * s) + 1 / (lam0 * b.S), alpha0, 1 + b.C);
  return tUpper((direction * L) / Math.sqrt(v), df) < level;
}
