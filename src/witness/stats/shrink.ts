// Empirical-Bayes dispersion: each function's own run-to-run α̂ (method of moments, few degrees of
// freedom) is shrunk toward the pooled α of all functions, by how much its own estimate can be
// trusted. A random-effects model: α̂ᵢ = αᵢ + eᵢ, eᵢ ~ (0, sᵢ²) sampling error, αᵢ ~ (α₀, τ²) real
// differences between functions (kernel or GC-heavy code is noisier than arithmetic), with α₀ and
// τ estimated robustly (median, MAD) because those differences are heavy-tailed.
//   sᵢ² ≈ 2(1/μᵢ + α₀)²/dᵢ   — large when Poisson noise swamps the run-to-run part (small μᵢ)
//   α̃ᵢ = (α̂ᵢ/sᵢ² + α₀/τ²) / (1/sᵢ² + 1/τ²)   — the posterior mean
// A big function with 8 df keeps mostly its own α̂; a 1%-share one leans on the pool.

export interface DispersionInput {
  alpha: number; // α̂ᵢ (NaN when no df)
  df: number;
  mu: number; // mean count per capture
}

export interface DispersionPrior {
  alpha0: number;
  tau2: number;
  /** Sampling variance of α₀ itself. */
  varAlpha0: number;
  atoms: number;
}

const samplingVar = (mu: number, a0: number, df: number) => (2 * (1 / Math.max(mu, 1e-9) + a0) ** 2) / df;

function median(xs: number[]): number {
  const a = [...xs].sort((x, y) => x - y);
  const n = a.length;
  return n % 2 ? a[(n - 1) / 2]! : (a[n / 2 - 1]! + a[n / 2]!) / 2;
}

/**
 * Robust centre and spread: run-to-run noise is heavy-tailed across functions (under load a few
 * kernel functions swing by 50% while user code moves by 1%), so a mean would hand every quiet
 * function the noise of the loudest few. α₀ is the median of α̂ over functions; τ comes from the
 * scaled MAD minus the typical sampling variance. A function that really is loud shows it in its
 * own α̂ and keeps it (its own estimate is precise relative to the small α₀-based sᵢ²).
 */
export function estimatePrior(xs: DispersionInput[], fallback: number): DispersionPrior {
  const valid = xs.filter((x) => Number.isFinite(x.alpha) && x.df > 0 && x.mu > 0);
  // Functions with ≥ 200 counts per capture, where run-to-run noise is not buried under Poisson noise.
  const strong = valid.filter((x) => x.mu >= 200);
  const use = strong.length >= 5 ? strong : valid;
  if (use.length < 3) return { alpha0: fallback, tau2: 0, varAlpha0: 0, atoms: use.length };
  // A sample variance is skewed (χ²_d/d has median ≈ (1 − 2/(9d))³ < 1): correct each function's
  // total relative variance 1/μ + α̂ to median-unbiased before taking the median of α.
  const corrected = use.map((x) => (1 / x.mu + x.alpha) / (1 - 2 / (9 * x.df)) ** 3 - 1 / x.mu);
  const alpha0 = Math.max(1e-6, median(corrected));
  const s2 = use.map((x) => samplingVar(x.mu, alpha0, x.df));
  const mad = 1.4826 * median(use.map((x) => Math.abs(x.alpha - alpha0)));
  const tau2 = Math.max(0, mad * mad - median(s2));
  // Variance of a median ≈ (π/2)·σ²/k.
  const varAlpha0 = (Math.PI / 2) * (median(s2) + tau2) / use.length;
  return { alpha0, tau2, varAlpha0, atoms: use.length };
}

/** Posterior α for one test, and the degrees of freedom its uncertainty amounts to. */
export function shrinkDispersion(x: DispersionInput, prior: DispersionPrior): { alpha: number; dfAlpha: number } {
  if (!Number.isFinite(x.alpha) || x.df === 0) return { alpha: prior.alpha0, dfAlpha: prior.varAlpha0 > 0 ? (2 * prior.alpha0 ** 2) / prior.varAlpha0 : Infinity };
  const s2 = samplingVar(x.mu, prior.alpha0, x.df);
  // Heavy tail: when a function's own replicates say it is clearly louder than the pool (α̂ more
  // than two sampling s.d. above α₀), believe them, with the replicates' own degrees of freedom.
  if (x.alpha > prior.alpha0 + 2 * Math.sqrt(s2)) {
    const own = samplingVar(x.mu, x.alpha, x.df);
    return { alpha: x.alpha, dfAlpha: (2 * x.alpha * x.alpha) / own };
  }
  const post = prior.tau2 > 0 ? (x.alpha / s2 + prior.alpha0 / prior.tau2) / (1 / s2 + 1 / prior.tau2) : prior.alpha0;
  const varPost = (prior.tau2 > 0 ? 1 / (1 / s2 + 1 / prior.tau2) : 0) + prior.varAlpha0;
  // Floor at a quarter of the pool: replicates that happen to agree closely do not make a
  // function arbitrarily quiet (the t reference with the replicate df covers the rest).
  const alpha = Math.max(post, prior.alpha0 / 4);
  return { alpha, dfAlpha: varPost > 0 ? (2 * alpha * alpha) / varPost : Infinity };
}
