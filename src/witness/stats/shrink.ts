// Empirical-Bayes dispersion: each function's own run-to-run α̂ (method of moments, few degrees of
// freedom) is shrunk toward the pooled α of all functions, by how much its own estimate can be
// trusted. A random-effects model (DerSimonian–Laird): α̂ᵢ = αᵢ + eᵢ, eᵢ ~ (0, sᵢ²) sampling error,
// αᵢ ~ (α₀, τ²) real differences between functions (GC-heavy code is noisier than arithmetic).
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

export function estimatePrior(xs: DispersionInput[], fallback: number): DispersionPrior {
  const use = xs.filter((x) => Number.isFinite(x.alpha) && x.df > 0 && x.mu > 0);
  if (use.length < 3) return { alpha0: fallback, tau2: 0, varAlpha0: 0, atoms: use.length };
  let a0 = Math.max(1e-6, use.reduce((s, x) => s + x.alpha, 0) / use.length);
  let tau2 = 0;
  let varA0 = 0;
  for (let it = 0; it < 6; it++) {
    const s2 = use.map((x) => samplingVar(x.mu, a0, x.df));
    // DerSimonian–Laird τ² from Cochran's Q with fixed-effect weights.
    const w = s2.map((v) => 1 / v);
    const sw = w.reduce((a, b) => a + b, 0);
    const fixed = use.reduce((s, x, i) => s + w[i]! * x.alpha, 0) / sw;
    const Q = use.reduce((s, x, i) => s + w[i]! * (x.alpha - fixed) ** 2, 0);
    const c = sw - w.reduce((a, b) => a + b * b, 0) / sw;
    tau2 = Math.max(0, (Q - (use.length - 1)) / c);
    const wr = s2.map((v) => 1 / (v + tau2));
    const swr = wr.reduce((a, b) => a + b, 0);
    a0 = Math.max(1e-6, use.reduce((s, x, i) => s + wr[i]! * x.alpha, 0) / swr);
    varA0 = 1 / swr;
  }
  return { alpha0: a0, tau2, varAlpha0: varA0, atoms: use.length };
}

/** Posterior α for one test, and the degrees of freedom its uncertainty amounts to. */
export function shrinkDispersion(x: DispersionInput, prior: DispersionPrior): { alpha: number; dfAlpha: number } {
  if (!Number.isFinite(x.alpha) || x.df === 0) return { alpha: prior.alpha0, dfAlpha: prior.varAlpha0 > 0 ? (2 * prior.alpha0 ** 2) / prior.varAlpha0 : Infinity };
  const s2 = samplingVar(x.mu, prior.alpha0, x.df);
  const post = prior.tau2 > 0 ? (x.alpha / s2 + prior.alpha0 / prior.tau2) / (1 / s2 + 1 / prior.tau2) : prior.alpha0;
  const varPost = (prior.tau2 > 0 ? 1 / (1 / s2 + 1 / prior.tau2) : 0) + prior.varAlpha0;
  // Never below half the pool: a function whose replicates happen to agree closely is not
  // thereby quieter than the rest by more than that.
  const alpha = Math.max(post, prior.alpha0 / 2);
  return { alpha, dfAlpha: varPost > 0 ? (2 * alpha * alpha) / varPost : Infinity };
}
