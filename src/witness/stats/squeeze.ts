// Empirical-Bayes moderation of per-function variance (Smyth 2004, limma's squeezeVar; the
// quasi-likelihood form is edgeR's glmQLFit, Lund et al. 2012).
//
// Why: each function's run-to-run noise is measured from only a few replicates (8 degrees of
// freedom with 5 captures per version). Trusting that alone gives t-tests with heavy tails and
// little power; replacing it with one pooled value gives tests that run hot for every function
// noisier than typical — and functions differ (GC, locks and caches are noisier than arithmetic).
// The middle way: the per-function quasi-dispersions φᵢ (observed / modelled variance, ~1 when the
// model fits) are treated as draws from a scaled inverse-χ² prior (s0², d0) fitted to all of them;
// each function's posterior φ̃ᵢ = (d0·s0² + d·φᵢ) / (d0 + d) is used with a t on d0 + d degrees of
// freedom. d0 is large when functions agree (the test is ~normal), small when they differ (the
// test keeps its tails). Functions far louder than the pool are left out of the fit and keep
// their own φᵢ, so one noisy kernel function neither hides nor taxes the rest.

import { median } from "./normalise.ts";

/** ψ(x), x > 0: recurrence up to 6, then the asymptotic series. */
export function digamma(x: number): number {
  let r = 0;
  while (x < 6) {
    r -= 1 / x;
    x += 1;
  }
  const f = 1 / (x * x);
  return r + Math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))));
}

/** ψ₁(x), x > 0. */
export function trigamma(x: number): number {
  let r = 0;
  while (x < 6) {
    r += 1 / (x * x);
    x += 1;
  }
  const f = 1 / (x * x);
  return r + 1 / x + f / 2 + (f / x) * (1 / 6 - f * (1 / 30 - f * (1 / 42 - f / 30)));
}

/** ψ₂(x), x > 0. */
function tetragamma(x: number): number {
  let r = 0;
  while (x < 6) {
    r -= 2 / (x * x * x);
    x += 1;
  }
  const f = 1 / (x * x);
  return r - f - f / x - (f * f) / 2 + (f * f * f) / 6 - (f * f * f * f) / 6 + (3 * f * f * f * f * f) / 10;
}

/** The x with ψ₁(x) = y (limma's Newton iteration on 1/ψ₁, monotone from x = 0.5 + 1/y). */
export function trigammaInverse(y: number): number {
  if (y > 1e7) return 1 / Math.sqrt(y);
  if (y < 1e-6) return 1 / y;
  let x = 0.5 + 1 / y;
  for (let i = 0; i < 50; i++) {
    const tri = trigamma(x);
    const dif = (tri * (1 - tri / y)) / tetragamma(x);
    x += dif;
    if (-dif / x < 1e-8) break;
  }
  return x;
}

export interface VariancePrior {
  /** Prior scale s0² of φ and its degrees of freedom d0 (Infinity: all functions agree). */
  s02: number;
  d0: number;
  /** Functions the prior was fitted on, and those left out as far louder than the rest. */
  fitted: number;
  loud: number;
  /** The centred log φ above which a function is loud (Infinity when nothing was fitted). */
  loudAbove: number;
}

/** log φ centred for its degrees of freedom: E[log χ²_d / d] = ψ(d/2) − log(d/2). */
const centred = (phi: number, d: number) => Math.log(phi) - digamma(d / 2) + Math.log(d / 2);

/**
 * Fit (s0², d0) to quasi-dispersions φ that each carry d degrees of freedom (limma's fitFDist by
 * moments of log φ). `loudSd`: a φ more than this many sampling s.d. of log χ²_d above the median
 * is loud and left out of the fit.
 */
export function fitPrior(phi: readonly number[], d: number, loudSd = 4): VariancePrior {
  const ok = phi.filter((x) => Number.isFinite(x) && x >= 0);
  if (ok.length < 3 || !(d > 0)) return { s02: 1, d0: Infinity, fitted: ok.length, loud: 0, loudAbove: Infinity };
  const floor = 1e-5 * Math.max(median(ok), 1e-12);
  const e0 = ok.map((x) => centred(Math.max(x, floor), d));
  const loudAbove = median(e0) + loudSd * Math.sqrt(trigamma(d / 2));
  const e = e0.filter((v) => v <= loudAbove);
  const n = e.length;
  if (n < 3) return { s02: 1, d0: Infinity, fitted: n, loud: ok.length - n, loudAbove: Infinity };
  const mean = e.reduce((a, b) => a + b, 0) / n;
  const evar = e.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1) - trigamma(d / 2);
  if (evar > 0) {
    const d0 = 2 * trigammaInverse(evar);
    return { s02: Math.exp(mean + digamma(d0 / 2) - Math.log(d0 / 2)), d0, fitted: n, loud: ok.length - n, loudAbove };
  }
  return { s02: Math.exp(mean), d0: Infinity, fitted: n, loud: ok.length - n, loudAbove };
}

/** Posterior φ̃ and its degrees of freedom. A loud function keeps its own φ with its own d. */
export function squeeze(phi: number, d: number, prior: VariancePrior): { phi: number; df: number } {
  if (!(d > 0) || !Number.isFinite(phi)) return { phi: prior.s02, df: prior.d0 };
  if (phi > 0 && centred(phi, d) > prior.loudAbove) return { phi, df: d };
  if (!Number.isFinite(prior.d0)) return { phi: prior.s02, df: Infinity };
  return { phi: (prior.d0 * prior.s02 + d * phi) / (prior.d0 + d), df: prior.d0 + d };
}
