// Where to spend the false-discovery budget. Plain BY gives every test the same share of q, so a
// profile with hundreds of functions sets a bar no 10% change can clear with 5 replicates. Weighted
// BY (Genovese, Roeder & Wasserman 2006; valid under any dependence with weights averaging 1,
// Blanchard & Roquain 2008) lets the budget follow detectability instead: with ξᵢ = the z a change
// of the relevant size (detectEffect, default 10%) would produce on test i — known before looking
// at the direction of the data, from pooled counts and dispersion only — Roeder & Wasserman's
// (2009) optimal per-test level is aᵢ = Φ̄(ξᵢ/2 + c/ξᵢ), with c such that Σaᵢ equals the total level.
// Tests that would see a 10% change trivially (big functions) or never (tiny ones) get little; the
// budget goes to tests where it decides. A floor keeps every test testable (a tiny function that
// triples is still flagged: its p-value is far below even the floored threshold).

import { normalCdf } from "./distributions.ts";

const upper = (x: number) => normalCdf(-x);

function levels(xi: readonly number[], c: number): number[] {
  return xi.map((x) => (x > 1e-9 ? upper(x / 2 + c / x) : 0));
}

/** Lagrange constant c with Σ Φ̄(ξ/2 + c/ξ) = total. */
export function solveC(xi: readonly number[], total: number): number {
  let lo = -1e4;
  let hi = 1e4;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    const s = levels(xi, mid).reduce((a, b) => a + b, 0);
    if (s > total) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Weights (mean 1) for m tests with detectability ξ, for a procedure whose total level is `total`
 * (BY's first step: q / c(m)). `floor` is the smallest weight, as a fraction of the uniform one.
 */
export function detectabilityWeights(xi: readonly number[], total: number, floor = 0.02): number[] {
  const m = xi.length;
  if (m === 0) return [];
  if (xi.every((x) => !(x > 1e-9))) return xi.map(() => 1);
  const c = solveC(xi, Math.min(total, m * 0.999));
  const a = levels(xi, c);
  const sum = a.reduce((s, v) => s + v, 0);
  let w = a.map((v) => Math.max(floor, (v * m) / sum));
  const mean = w.reduce((s, v) => s + v, 0) / m;
  w = w.map((v) => v / mean);
  return w;
}

/** The per-test level a hypothetical test of detectability ξ would get among tests `xi`. */
export function levelFor(xiRef: number, xi: readonly number[], total: number, floor = 0.02): number {
  const all = [...xi, xiRef];
  const w = detectabilityWeights(all, total, floor);
  return (w[w.length - 1]! * total) / all.length;
}
