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
// test keeps its tails). The prior's scale follows the function's size (limma-trend): on a real
// service the small functions (thread starts, allocator paths) are burstier than the big ones.
//
// Loud functions. Real services have a minority of bursty functions (30–40% run-to-run CV beside
// 2%). They are left out of the fit and form a second, loud component; each function's posterior
// is the mixture of its posterior under either, weighted by how likely its own φᵢ is under each
// (robust empirical Bayes, after Phipson et al. 2016). A bursty function whose three captures
// happened to agree is not squeezed all the way to the steady ones' variance (its test would run
// hot), and a steady function that looks a little noisy is not handed a loud one's variance.
//
// How much the prior is worth depends on the function. Functions differ in their run-to-run noise
// α_i (τ²: the variance of log α_i across functions), not in their Poisson noise, which is known;
// so a function whose modelled variance is a fraction f of run-to-run noise has a prior on φ with
// log-variance ≈ f²·τ², and prior degrees of freedom d0 = 2·ψ₁⁻¹(f²·τ²): large for a function
// whose samples are few (its variance is mostly the known Poisson part), smaller for a big one.
// τ² comes from the spread of the steady functions' φ beyond their sampling, over the mean f²; it is
// never taken below TAU2_MIN: twenty-odd functions with a few replicates each cannot tell "all
// alike" from "alike within ±30%", and "all alike" (d0 = ∞, the pool's variance and a normal
// reference for everyone: limma's answer when the spread comes out ≤ 0, which it did in 45% of
// seeded A/A trials) runs the noisier functions' tests hot. The prior's own estimation error at the
// function's size (a trend fitted on n functions) is added to f²·τ², and d0 never exceeds D0_MAX.

import { median } from "./normalise.ts";
import { logGamma } from "./distributions.ts";

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
  /** Prior scale s0² of φ at the centre of the trend, and its degrees of freedom d0 for a function whose variance is all run-to-run noise (f = 1). */
  s02: number;
  d0: number;
  /** τ²: the variance of log α across the steady functions (≥ TAU2_MIN), and the pool α0 that sets each function's run-to-run fraction f (null: f = 1 for every function). */
  tau2: number;
  alpha0: number | null;
  /**
   * limma-trend: log s0² moves with log μ (the function's mean count) by `slope`, fitted on the
   * functions' own φ. Small functions (thread starts, allocator paths) are burstier than the big
   * steady ones; one prior for all would hand them the steady ones' variance (tests running hot)
   * or hand the steady ones theirs (no power). x is clamped to the fitted range [lo, hi].
   */
  trend: { slope: number; centre: number; lo: number; hi: number };
  /**
   * How well the prior's scale is known: it is fitted on `n` functions' log φ (residual variance
   * `res`, spread of x `sxx`), so at x its log has the prediction variance res·(1/n + (x − centre)²/sxx).
   */
  fit: { n: number; res: number; sxx: number };
  /** Functions the prior was fitted on, and those left out as far louder than the rest. */
  fitted: number;
  loud: number;
  /** The centred log φ above its trend beyond which a function is loud (Infinity when nothing was fitted). */
  loudAbove: number;
  /** The loud component: its share of the functions, its scale over the steady one's, its prior df. Null without loud functions. */
  mixture: { weight: number; scale: number; df: number } | null;
}

/** log φ centred for its degrees of freedom: E[log χ²_d / d] = ψ(d/2) − log(d/2). */
const centred = (phi: number, d: number) => Math.log(phi) - digamma(d / 2) + Math.log(d / 2);

/**
 * How far above the trend (sampling s.d. of log χ²_d) a φ is loud: left out of the steady fit and
 * used for the loud component. 2: a steady function lands there by chance about once in 300 at 4 df
 * (3 + 3 captures); a bursty one (a thread start at a 30–40% CV beside functions at 2%) mostly does.
 */
export const LOUD_SD = 2;
/** Fewer functions fitted than this: no loud component (see fitPrior). */
export const MIXTURE_MIN = 12;
/** With few functions, how far above the rest a function keeps its own φ and df. */
export const FEW_LOUD_SD = 4;
/**
 * The least spread of log α assumed between steady functions: an s.d. of 0.5 (two thirds of the
 * functions within ×0.78 … ×1.28 of each other's run-to-run CV). With it a function whose variance
 * is all run-to-run noise has at most 2·ψ₁⁻¹(0.25) ≈ 9 prior degrees of freedom.
 */
export const TAU2_MIN = 0.25;
/** The floor holds in full up to this many fitted functions and falls as 1/n beyond: thousands of functions measure their spread themselves. */
export const TAU2_FUNCTIONS = 50;
/**
 * The most prior degrees of freedom any function's variance gets, however Poisson-bound it is: the
 * prior's scale at a function's size rests on the pool α0, and α0 is learnt from the handful of
 * functions big enough for run-to-run noise to show. A prior worth more than they are made the
 * mid-sized functions' tests run hot whenever those few happened to agree (without the cap, A/A
 * `changed` 3.75% and 6.55% beside bursty neighbours; with it 3.1% and 5.75%, 2,000 seeded trials
 * at 4 captures per version; bench/RESULTS.md).
 */
export const D0_MAX = 20;

/** ψ(d/2) − log(d/2): E[log χ²_d / d]; 0 at d = ∞. */
const logChiCentre = (d: number) => (Number.isFinite(d) && d < 1e12 ? digamma(d / 2) - Math.log(d / 2) : 0);

const FLAT = { slope: 0, centre: 0, lo: 0, hi: 0 };
const UNFITTED = { n: Infinity, res: 0, sxx: Infinity };
/** Fewer functions than this: no trend (a slope from a handful of points is noise). */
const TREND_MIN = 8;

/** The trend's offset at x (0 at the centre). */
const trendAt = (t: VariancePrior["trend"], x: number | undefined) => (x === undefined ? 0 : t.slope * (Math.min(t.hi, Math.max(t.lo, x)) - t.centre));

/** s0² at covariate x (log mean count). */
export function priorScale(prior: VariancePrior, x?: number): number {
  return prior.s02 * Math.exp(trendAt(prior.trend, x));
}

/** The fraction of a function's modelled variance (φ̄·(1/μ + α0) per capture) that is run-to-run noise, at x = log μ; 1 without α0. */
function runFraction(prior: Pick<VariancePrior, "s02" | "trend" | "alpha0">, x: number | undefined): number {
  if (prior.alpha0 === null || x === undefined) return 1;
  const phiBar = prior.s02 * Math.exp(trendAt(prior.trend, x));
  return Math.min(1, Math.max(0, 1 - 1 / (phiBar * (1 + prior.alpha0 * Math.exp(x)))));
}

/** The prior (scale, df) of φ for a function at x = log μ: d0 from its run-to-run fraction (see the header). */
export function priorAt(prior: VariancePrior, x?: number): { s: number; d0: number } {
  const f = runFraction(prior, x);
  const t = prior.trend;
  const dx = x === undefined || prior.trend === FLAT ? 0 : Math.min(t.hi, Math.max(t.lo, x)) - t.centre;
  // The function's own departure (f²τ²), and the prior's estimation error at its size: a prior
  // fitted on twenty-odd functions is not worth more than they are.
  const v = f * f * prior.tau2 + prior.fit.res * (1 / prior.fit.n + (prior.fit.sxx > 0 ? (dx * dx) / prior.fit.sxx : 0));
  const d0 = Math.min(D0_MAX, v < 1e-9 ? Infinity : 2 * trigammaInverse(v));
  // s02 is the scale at f = 1; the typical φ (the geometric mean) is the same for every f.
  return { s: priorScale(prior, x) * Math.exp(logChiCentre(d0) - logChiCentre(prior.d0)), d0 };
}

function line(e: number[], x: number[] | undefined): VariancePrior["trend"] {
  if (!x || e.length < TREND_MIN) return FLAT;
  const n = e.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const me = e.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxe = 0;
  for (let i = 0; i < n; i++) {
    sxx += (x[i]! - mx) ** 2;
    sxe += (x[i]! - mx) * (e[i]! - me);
  }
  if (!(sxx > 1e-9)) return FLAT;
  return { slope: sxe / sxx, centre: mx, lo: Math.min(...x), hi: Math.max(...x) };
}

/**
 * Fit (s0², d0) to quasi-dispersions φ that each carry d degrees of freedom (limma's fitFDist by
 * moments of log φ), with a linear trend in x = log μ when given (limma-trend). `loudSd`: a φ more
 * than this many sampling s.d. of log χ²_d above the trend is loud and left out of the fit.
 * `alpha0`: the pool's run-to-run dispersion, which sets each function's run-to-run fraction f
 * (null: f = 1 for all, one d0 for every function).
 */
export function fitPrior(phi: readonly number[], d: number, loudSd = LOUD_SD, x?: readonly number[], alpha0: number | null = null): VariancePrior {
  const keep = phi.map((_, i) => i).filter((i) => Number.isFinite(phi[i]!) && phi[i]! >= 0);
  const none = (fitted: number, loud: number): VariancePrior => ({ s02: 1, d0: Infinity, tau2: 0, alpha0: null, trend: FLAT, fit: UNFITTED, fitted, loud, loudAbove: Infinity, mixture: null });
  if (keep.length < 3 || !(d > 0)) return none(keep.length, 0);
  const ok = keep.map((i) => phi[i]!);
  // A small program (a handful of functions) cannot tell a loud component from the steady one's
  // tail: no mixture, and only a function far above the rest (FEW_LOUD_SD) keeps its own φ.
  const few = ok.length < MIXTURE_MIN;
  if (few) loudSd = FEW_LOUD_SD;
  const xs = x ? keep.map((i) => x[i]!) : undefined;
  const floor = 1e-5 * Math.max(median(ok), 1e-12);
  const e0 = ok.map((v) => centred(Math.max(v, floor), d));
  // Loud is judged against a first, robust trend (median centre), then the fit leaves them out.
  const t0 = line(e0, xs);
  const r0 = e0.map((v, i) => v - trendAt(t0, xs?.[i]));
  const loudAbove = median(r0) + loudSd * Math.sqrt(trigamma(d / 2));
  const quiet = e0.map((_, i) => i).filter((i) => r0[i]! <= loudAbove);
  const n = quiet.length;
  if (n < 3) return none(n, ok.length - n);
  const e = quiet.map((i) => e0[i]!);
  const trend = line(e, xs ? quiet.map((i) => xs[i]!) : undefined);
  const res = quiet.map((i) => e0[i]! - trendAt(trend, xs?.[i]));
  const mean = res.reduce((a, b) => a + b, 0) / n;
  const dfUsed = trend === FLAT ? 1 : 2;
  const resVar = res.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - dfUsed);
  const evar = resVar - trigamma(d / 2);
  // τ²: the spread of the quiet functions' true log φ, each f_i²·τ², over their mean f² (f at the
  // fitted scale: the trend's own offset, before τ² is known, is what sets it).
  const at = { s02: Math.exp(mean), trend, alpha0 };
  const f2 = quiet.reduce((t, i) => t + runFraction(at, xs?.[i]) ** 2, 0) / n;
  const tau2 = Math.max(TAU2_MIN * Math.min(1, TAU2_FUNCTIONS / n), f2 > 0.01 ? evar / f2 : 0);
  const d0 = 2 * trigammaInverse(tau2);
  const qx = xs ? quiet.map((i) => xs[i]!) : [];
  const mx = qx.reduce((a, b) => a + b, 0) / Math.max(1, qx.length);
  const fit = { n, res: resVar, sxx: trend === FLAT ? Infinity : qx.reduce((a, b) => a + (b - mx) ** 2, 0) };
  const prior: VariancePrior = { s02: Math.exp(mean + logChiCentre(d0)), d0, tau2, alpha0, trend, fit, fitted: n, loud: ok.length - n, loudAbove, mixture: null };
  const loudIdx = e0.map((_, i) => i).filter((i) => r0[i]! > loudAbove);
  if (loudIdx.length === 0 || few) return prior;
  return { ...prior, mixture: fitLoud(ok, d, xs, prior, new Set(loudIdx)) };
}

/**
 * The loud component by EM: starting from the functions beyond loudAbove, each function's chance
 * of being loud given its φ, then the component's weight and scale (a geometric mean of φ over
 * the steady scale, centred for log χ²_d) from those chances, twenty rounds. The steady
 * component stays as fitted on the quiet functions.
 */
function fitLoud(phi: number[], d: number, xs: number[] | undefined, steady: VariancePrior, start: Set<number>): NonNullable<VariancePrior["mixture"]> {
  const n = phi.length;
  const at = phi.map((_, i) => priorAt(steady, xs?.[i]));
  const rel = phi.map((v, i) => Math.max(v, 1e-12) / at[i]!.s);
  let p: number[] = phi.map((_, i) => (start.has(i) ? 1 : 0));
  let mix = { weight: start.size / n, scale: 2, df: d };
  for (let round = 0; round < 20; round++) {
    const sp = p.reduce((a, b) => a + b, 0);
    if (sp <= 0) break;
    const logMean = p.reduce((t, w, i) => t + w * Math.log(rel[i]!), 0) / sp - (digamma(d / 2) - Math.log(d / 2));
    mix = { weight: Math.min(0.5, Math.max(sp / n, 1 / n)), scale: Math.max(1.5, Math.exp(logMean)), df: d };
    p = rel.map((x, i) => loudChance(x, 1, d, at[i]!.d0, mix));
  }
  return mix;
}

/** The chance a function with φ (over the steady scale s) belongs to the loud component. */
function loudChance(phi: number, s: number, d: number, d0: number, mix: NonNullable<VariancePrior["mixture"]>): number {
  const lf = Math.log(mix.weight) + logDensity(phi, s * mix.scale, d, mix.df);
  const sf = Math.log(1 - mix.weight) + logDensity(phi, s, d, d0);
  return Number.isFinite(lf) || Number.isFinite(sf) ? 1 / (1 + Math.exp(sf - lf)) : 0;
}

/** log density of φ = s·F(d, d0) at phi (d0 = ∞: s·χ²_d/d). */
function logDensity(phi: number, s: number, d: number, d0: number): number {
  const x = phi / s;
  if (!(x > 0)) return -Infinity;
  const a = d / 2;
  if (!Number.isFinite(d0) || d0 > 1e6) return a * Math.log(a) - logGamma(a) + (a - 1) * Math.log(x) - a * x - Math.log(s);
  const b = d0 / 2;
  return a * Math.log(d / d0) + (a - 1) * Math.log(x) - (a + b) * Math.log1p((d * x) / d0) - (logGamma(a) + logGamma(b) - logGamma(a + b)) - Math.log(s);
}

/** Posterior φ̃ under one scaled inverse-χ² prior (s, d0). */
function posterior(phi: number, d: number, s: number, d0: number): { phi: number; df: number } {
  if (!Number.isFinite(d0)) return { phi: s, df: Infinity };
  return { phi: (d0 * s + d * phi) / (d0 + d), df: d0 + d };
}

/** Posterior φ̃ and its degrees of freedom (x: the function's log mean count, for the trend): the steady prior's, mixed with the loud component's by how likely φ is under each. */
export function squeeze(phi: number, d: number, prior: VariancePrior, x?: number): { phi: number; df: number } {
  const { s: s02, d0 } = priorAt(prior, x);
  if (!(d > 0) || !Number.isFinite(phi)) return { phi: s02, df: d0 };
  const steady = posterior(phi, d, s02, d0);
  const mix = prior.mixture;
  if (!mix) return phi > 0 && centred(phi, d) - trendAt(prior.trend, x) > prior.loudAbove ? { phi, df: d } : steady;
  const s1 = s02 * mix.scale;
  const loud = posterior(phi, d, s1, mix.df);
  const p = loudChance(phi, s02, d, d0, mix);
  // The t reference of a mixture of two: its df mixed harmonically (a variance estimate's
  // uncertainty adds as 1/df), so a function that may well be loud keeps most of its tails.
  return { phi: (1 - p) * steady.phi + p * loud.phi, df: 1 / ((1 - p) / steady.df + p / loud.df) };
}
