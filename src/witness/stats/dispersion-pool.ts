// The pool's run-to-run dispersion α0: the noise floor every function's variance model starts
// from (Var = μ + α0·μ²). Each function's own α̂ (method of moments) has few degrees of freedom and
// is mostly Poisson noise below ~200 counts per capture, so α0 is a robust centre of the
// functions where run-to-run noise shows. How far a single function departs from it is not
// decided here: that is its quasi-dispersion, moderated across functions (squeeze.ts).

import { median, weightedMedian } from "./normalise.ts";

/** Counts per capture from which run-to-run noise is no longer buried under Poisson noise. */
export const STRONG_COUNT = 200;

/** Fewer functions than this: the plain median (see estimatePrior). */
const WEIGHTED_MIN = 10;

export interface DispersionInput {
  alpha: number; // α̂ᵢ (NaN when no df)
  df: number;
  mu: number; // mean count per capture
}

export interface DispersionPrior {
  alpha0: number;
  /** Functions α0 was taken from. */
  atoms: number;
}

/**
 * A robust centre: run-to-run noise is heavy-tailed across functions (under load a few kernel
 * functions swing by 50% while user code moves by 1%), so a mean would hand every quiet function
 * the noise of the loudest few. α0 is the precision-weighted median of α̂ over the functions with enough counts; a
 * function louder than that shows it in its quasi-dispersion and keeps it.
 */
export function estimatePrior(xs: DispersionInput[], fallback: number): DispersionPrior {
  const valid = xs.filter((x) => Number.isFinite(x.alpha) && x.df > 0 && x.mu > 0);
  const strong = valid.filter((x) => x.mu >= STRONG_COUNT);
  const use = strong.length >= 5 ? strong : valid;
  if (use.length < 3) return { alpha0: fallback, atoms: use.length };
  // A sample variance is skewed (χ²_d/d has median ≈ (1 − 2/(9d))³ < 1): correct each function's
  // total relative variance 1/μ + α̂ to median-unbiased before taking the median of α.
  const corrected = use.map((x) => (1 / x.mu + x.alpha) / (1 - 2 / (9 * x.df)) ** 3 - 1 / x.mu);
  // Weighted by precision: a function's α̂ has variance ∝ (1/μ + α)², mostly Poisson noise at a few
  // counts, so the many small bursty functions of a real service (thread starts, allocator paths)
  // must not set the noise floor of the big steady ones; they show their own noise in their
  // quasi-dispersion. The weights need α, so the median is iterated from the unweighted one.
  // With few functions (a small program) a weighted median is one or two functions' noise: the plain one.
  let alpha0 = Math.max(1e-6, median(corrected));
  if (use.length >= WEIGHTED_MIN) for (let k = 0; k < 3; k++) alpha0 = Math.max(1e-6, weightedMedian(corrected, use.map((x) => 1 / (1 / x.mu + alpha0) ** 2)));
  return { alpha0, atoms: use.length };
}
