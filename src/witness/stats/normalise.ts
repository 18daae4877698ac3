// Size factors: how much of each capture's count is "depth" (longer window, more load, faster
// sampling) rather than the function itself. Counts are compared as count / size factor.
//
//   share         s = axis total. Compositional: when one function grows, every other function's
//                 share falls, so bystanders look like they shrank.
//   rate          s = measured seconds. Honest about time, but moves with the offered load.
//   median-ratio  s = count-weighted median over call-tree units (diff/tree-units.ts) of count /
//                 (geometric mean of that unit's count over all captures) — DESeq's estimator on
//                 units of work. Changed work under half the axis barely moves it, so bystanders
//                 stay put. The verdict uses this one.
//   cpu           s = the capture's cpu axis total (alloc only): bytes allocated per unit of CPU,
//                 which stays put when a version merely runs more (more load, more requests).

export type Normalisation = "median-ratio" | "share" | "rate" | "cpu";

function geomeanNormalise(s: number[]): number[] {
  const g = Math.exp(s.reduce((t, v) => t + Math.log(v), 0) / s.length);
  return s.map((v) => v / g);
}

export function median(xs: number[]): number {
  const a = [...xs].sort((x, y) => x - y);
  const n = a.length;
  if (n === 0) return NaN;
  return n % 2 ? a[(n - 1) / 2]! : (a[n / 2 - 1]! + a[n / 2]!) / 2;
}

export function shareFactors(totals: number[]): number[] {
  return geomeanNormalise(totals.map((t) => Math.max(t, 1e-12)));
}

export function rateFactors(seconds: (number | undefined)[]): number[] | null {
  if (seconds.some((s) => s === undefined || !(s > 0))) return null;
  return geomeanNormalise(seconds as number[]);
}

/** The fewest call-tree units median-ratio rests on. */
export const MIN_UNITS = 5;

/** The weighted median of xs (weights ≥ 0): the smallest x whose cumulative weight reaches half. */
export function weightedMedian(xs: number[], ws: number[]): number {
  const order = xs.map((_, i) => i).sort((a, b) => xs[a]! - xs[b]!);
  const half = ws.reduce((a, b) => a + b, 0) / 2;
  let acc = 0;
  for (const i of order) {
    acc += ws[i]!;
    if (acc >= half) return xs[i]!;
  }
  return NaN;
}

/**
 * Median of ratios over call-tree units (diff/tree-units.ts), each unit weighted by its count: the
 * size factor is the typical ratio of *work*, not of functions, so the unchanged work is estimated
 * from at least half the axis whatever the number of small paths a changed function has (the diff
 * then sets the causes it finds aside and estimates again: diff/verdict-run.ts). Null when fewer
 * than MIN_UNITS units are present in every capture (a median of two or three ratios is one
 * function's noise).
 */
export function unitRatioFactors(units: Float64Array[], nCaptures: number): number[] | null {
  const use = units.filter((u) => u.every((v) => v > 0));
  if (use.length < MIN_UNITS) return null;
  const logGeo = use.map((u) => u.reduce((t, v) => t + Math.log(v), 0) / nCaptures);
  const w = use.map((u) => u.reduce((t, v) => t + v, 0));
  const s: number[] = [];
  for (let c = 0; c < nCaptures; c++) s.push(Math.exp(weightedMedian(use.map((u, i) => Math.log(u[c]!) - logGeo[i]!), w)));
  return geomeanNormalise(s);
}
