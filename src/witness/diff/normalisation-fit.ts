// Stages 2–3 of the diff: size factors for each normalisation, then, under each, the run-to-run
// dispersion (the pool's α0, each function's quasi-dispersion moderated across functions) and the
// rate test of every distinct count vector.

import { rateFactors, shareFactors, unitRatioFactors, type Normalisation } from "../stats/normalise.ts";
import { dispersionMoM, quasiDispersion, rateTest, type Groups } from "../stats/rate-test.ts";
import { estimatePrior, type DispersionPrior } from "../stats/dispersion-pool.ts";
import { fitPrior, squeeze, type VariancePrior } from "../stats/squeeze.ts";
import type { AxisMatrix, TestSet } from "./axis-matrix.ts";
import { axisTotal } from "../model.ts";

export interface FittedTest {
  phi: number;
  df: number;
  /** The run-to-run α the moderated variance amounts to at this function's size (for the report). */
  alpha: number;
  r: ReturnType<typeof rateTest>;
}

export interface NormalisationFit {
  norm: Normalisation;
  groups: Groups;
  alpha0: number;
  prior: DispersionPrior;
  variance: VariancePrior | null;
  /** One per distinct count vector, in TestSet.distinct order. */
  tests: FittedTest[];
}

/** alloc per unit of CPU: every capture's cpu axis total, when every capture of the comparison has one. */
function cpuFactors(m: AxisMatrix): number[] | null {
  if (m.axis !== "alloc") return null;
  const cpu = [...m.before, ...m.after].map((c) => (c.axes.cpu ? axisTotal(c.axes.cpu) : 0));
  return cpu.every((t) => t > 0) ? shareFactors(cpu) : null;
}

/**
 * The size factors each normalisation can have on this axis (rate needs every measured time,
 * median-ratio a call-tree unit present in every capture). `causes`: functions found changed, whose
 * units are left out of median-ratio (iterative exclusion: the unchanged work is estimated from
 * the work that did not change).
 */
export function sizeFactors(m: AxisMatrix, causes: ReadonlySet<number> = new Set()): Partial<Record<Normalisation, number[]>> {
  const factors: Partial<Record<Normalisation, number[]>> = { share: shareFactors(m.totals) };
  const rate = rateFactors(m.seconds);
  if (rate) factors.rate = rate;
  const kept = causes.size ? m.units.filter((u) => !u.path.some((f) => causes.has(f))) : m.units;
  const mr = unitRatioFactors(
    kept.map((u) => u.y),
    m.totals.length,
  );
  if (mr) factors["median-ratio"] = mr;
  const cpu = cpuFactors(m);
  if (cpu) factors.cpu = cpu;
  return factors;
}

/** The normalisation the verdict uses: the one asked for, or share with a note saying why not. */
export function chooseNormalisation(factors: Partial<Record<Normalisation, number[]>>, wanted: Normalisation): { used: Normalisation; note?: string } {
  if (factors[wanted]) return { used: wanted };
  const why: Record<Normalisation, string> = {
    rate: "rate normalisation needs the measured time of every capture (folded input has none)",
    cpu: "cpu normalisation needs the alloc axis and a cpu axis in every capture",
    "median-ratio": "fewer than 5 call paths present in every capture: median-ratio impossible",
    share: "share normalisation has no size factors", // never: every axis has share factors
  };
  return { used: "share", note: `${why[wanted]}, share used instead` };
}

/** Own-cost vectors carry the pool (or every vector when fewer than 3 are own costs). */
function isPoolAtom(tests: TestSet, i: number): boolean {
  return tests.ownKeys.has(i) || tests.ownKeys.size < 3;
}

/**
 * Fit one normalisation: dispersion pool, moderated quasi-dispersion, rate test per distinct vector.
 * `priorAlpha` stands in for the pool when neither side has replicates (`usePrior`).
 */
export function fitNormalisation(
  norm: Normalisation,
  size: number[],
  cols: { before: number[]; after: number[] },
  tests: TestSet,
  pool: { usePrior: boolean; priorAlpha: number },
): NormalisationFit {
  const { distinct } = tests;
  const captureCount = cols.before.length + cols.after.length;
  const groups: Groups = { before: cols.before, after: cols.after, size };
  const moms = distinct.map((y) => dispersionMoM(y, groups));
  const mus = distinct.map((y) => {
    let t = 0;
    for (let c = 0; c < captureCount; c++) t += y[c]! / size[c]!;
    return t / captureCount;
  });
  // The prior comes from self vectors only: an inclusive count sums many self counts, so its
  // run-to-run noise averages out and would drag the pool below what a single function shows.
  const atoms = distinct.map((_, i) => ({ alpha: moms[i]!.alpha, df: moms[i]!.df, mu: mus[i]! })).filter((_, i) => isPoolAtom(tests, i));
  const prior: DispersionPrior = pool.usePrior ? { alpha0: pool.priorAlpha, atoms: 0 } : estimatePrior(atoms, pool.priorAlpha);
  const alpha0 = prior.alpha0;
  // Each function's own departure from α0 (quasi-dispersion), moderated across the self
  // vectors — the same atoms as α0, for the same reason — then applied to every test.
  // The fit needs one df: the full replicate df (a group of all zeros has none, and such a
  // function is far below STRONG_COUNT anyway).
  const quasi = distinct.map((y) => (pool.usePrior ? { phi: NaN, df: 0 } : quasiDispersion(y, groups, alpha0)));
  const fullDf = quasi.reduce((d, x) => Math.max(d, x.df), 0);
  // Every own-cost function with the full replicate df, small ones included: the loud component's
  // weight must be learnt from the functions it is applied to (a real service's bursty neighbours
  // are small; fitted on the big ones only, the loud weight came out near 0 and a bursty function
  // whose few captures agreed was squeezed to the steady variance: A/A beside ten bursty
  // functions said `changed` in 12.4% of 2,000 seeded trials). The trend in log μ keeps the
  // small functions' scale apart from the big ones'; α0 sets each one's run-to-run fraction.
  const fitAtom = (i: number) => isPoolAtom(tests, i) && quasi[i]!.df === fullDf;
  const on = quasi.map((_, i) => i).filter((i) => fitAtom(i));
  const logMu = (i: number) => Math.log(Math.max(mus[i]!, 1e-9));
  const variance = pool.usePrior
    ? null
    : fitPrior(
        on.map((i) => quasi[i]!.phi),
        fullDf,
        undefined,
        on.map(logMu),
        alpha0,
      );
  const fitted = distinct.map((y, i) => {
    const sq = variance ? squeeze(quasi[i]!.phi, quasi[i]!.df, variance, logMu(i)) : { phi: 1, df: Infinity };
    const mu = Math.max(mus[i]!, 1e-9);
    const alpha = Math.max(0, sq.phi * (1 / mu + alpha0) - 1 / mu);
    return { phi: sq.phi, df: sq.df, alpha, r: rateTest(y, groups, alpha0, sq.phi, sq.df) };
  });
  return { norm, groups, alpha0, prior, variance, tests: fitted };
}
