// Where to spend the error budget. Plain Holm gives every test q/m, so a profile with hundreds of
// small functions sets a bar no 10% change of a 1%-share function clears with 5 replicates. The
// verdict promises something specific: a detectEffect (10%) change of a function holding at least
// detectShare (1%) is found. So the budget goes to the tests that promise covers ("focus": pooled
// share ≥ FOCUS_MARGIN × detectShare, the margin absorbing the share's own sampling noise), split
// among them by Roeder & Wasserman's (2009) optimal per-test level for that effect:
//   aᵢ = Φ̄(ξᵢ/2 + c/ξᵢ),  Σ aᵢ = total,  ξᵢ = the z a detectEffect change would produce on test i
// (known before the direction of the data is looked at: pooled counts and dispersion only).
// Big functions see a 10% change trivially and get little; the ones near the promise get most.
// Every other test keeps a floor (as a fraction of the uniform weight): a small function that
// triples is still flagged, its p-value being far below even the floored threshold.
// Weights fixed before testing and averaging 1 keep weighted Holm's guarantee.

import { normalCdf } from "./distributions.ts";

/** How far below detectShare a test's pooled share may sit and still be in focus. */
export const FOCUS_MARGIN = 0.8;
export const WEIGHT_FLOOR = 0.02;

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
 * Weights (mean 1) for m tests with detectability ξ, of which `focus` are covered by the verdict's
 * promise, for a procedure whose first step spends `total` (Holm: q). No test in focus (or none
 * detectable): uniform.
 */
export function detectabilityWeights(xi: readonly number[], focus: readonly boolean[], total: number, floor = WEIGHT_FLOOR): number[] {
  const m = xi.length;
  if (m === 0) return [];
  const inFocus = xi.map((_, i) => i).filter((i) => focus[i] && xi[i]! > 1e-9);
  if (inFocus.length === 0) return xi.map(() => 1);
  const fx = inFocus.map((i) => xi[i]!);
  const c = solveC(fx, Math.min(total, inFocus.length * 0.999));
  const a = levels(fx, c);
  const w = xi.map(() => floor);
  inFocus.forEach((i, k) => (w[i] = Math.max(floor, (a[k]! * m) / total)));
  const mean = w.reduce((s, v) => s + v, 0) / m;
  return capped(
    w.map((v) => v / mean),
    inFocus,
    Math.max(MAX_LEVEL_SHARE, 1 / inFocus.length) * m,
  );
}

/**
 * No test gets more than MAX_LEVEL_SHARE of the family's level. Optimal weights can hand almost all
 * of it to the one or two tests at the edge of the promise; a test at level q/2 is then flagged at
 * p ≈ 0.02, and a variance underestimated by a fifth (three or four replicates leave it that
 * uncertain) makes that a coin toss on unchanged code. (With fewer than 8 tests in focus the cap
 * is the even share, so the level is still spent.) Water-filling among the tests in focus:
 * what a capped test gives up goes to the others in focus, in proportion (the floor stays).
 */
export const MAX_LEVEL_SHARE = 1 / 8;

function capped(w: number[], focus: number[], cap: number): number[] {
  const out = [...w];
  for (let k = 0; k < 20; k++) {
    const over = focus.filter((i) => out[i]! > cap + 1e-12);
    if (over.length === 0) break;
    const under = focus.filter((i) => out[i]! < cap - 1e-12);
    const room = under.reduce((s, i) => s + out[i]!, 0);
    if (room <= 0) break;
    const excess = over.reduce((s, i) => s + out[i]! - cap, 0);
    for (const i of over) out[i] = cap;
    for (const i of under) out[i]! += (excess * out[i]!) / room;
  }
  return out;
}

/** The first-step level a hypothetical in-focus test of detectability ξ would get among `xi`. */
export function levelFor(xiRef: number, xi: readonly number[], focus: readonly boolean[], total: number, floor = WEIGHT_FLOOR): number {
  const w = detectabilityWeights([...xi, xiRef], [...focus, true], total, floor);
  return (w[w.length - 1]! * total) / w.length;
}
