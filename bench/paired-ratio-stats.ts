// Summaries of per-pair slowdowns for benches that alternate a tool on and off on the same
// processes: the median with its interquartile range, and a bootstrap 90% interval of the median,
// so a reader sees whether a difference of 1% is resolved or lost in the spread.
import { rng } from "../test/fixtures/profiles/synthetic.ts";

export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos), hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

export const median = (xs: number[]) => quantile(xs, 0.5);

/** Percentile bootstrap interval of the median (resampling the pairs with replacement). */
export function bootstrapMedian(xs: number[], level = 0.9, rounds = 10000, seed = 1): [number, number] {
  const next = rng(seed); // seeded: the same input gives the same interval on every run
  const meds: number[] = [];
  for (let r = 0; r < rounds; r++) meds.push(median(xs.map(() => xs[Math.floor(next() * xs.length)]!)));
  return [quantile(meds, (1 - level) / 2), quantile(meds, 1 - (1 - level) / 2)];
}

export interface PairedSummary { n: number; median: number; q1: number; q3: number; ci: [number, number]; mean: number }

export function summarize(xs: number[]): PairedSummary {
  return { n: xs.length, median: median(xs), q1: quantile(xs, 0.25), q3: quantile(xs, 0.75), ci: bootstrapMedian(xs), mean: xs.reduce((s, x) => s + x, 0) / xs.length };
}
