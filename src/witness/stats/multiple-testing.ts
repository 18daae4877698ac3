// Benjamini–Yekutieli step-up: controls the false discovery rate at q under *any* dependence
// between tests (functions on one call path are strongly dependent: a callee's inclusive count is
// part of its caller's), at the price of the harmonic factor c(m) = Σ 1/i.

export function harmonic(m: number): number {
  let c = 0;
  for (let i = 1; i <= m; i++) c += 1 / i;
  return c;
}

/**
 * BY-adjusted p-values (same order as the input). With weights (mean 1), the weighted step-up on
 * p/w — FDR ≤ q under arbitrary dependence still holds (Blanchard & Roquain 2008).
 */
export function byAdjust(p: readonly number[], w?: readonly number[]): number[] {
  const m = p.length;
  if (m === 0) return [];
  const cm = harmonic(m);
  const x = w ? p.map((v, i) => v / w[i]!) : p;
  const order = x.map((v, i) => i).sort((a, b) => x[b]! - x[a]!); // descending
  const out = new Array<number>(m);
  let running = Infinity;
  for (let r = 0; r < m; r++) {
    const i = order[r]!;
    const rank = m - r; // ascending rank of x[i]
    running = Math.min(running, (x[i]! * m * cm) / rank);
    out[i] = Math.min(1, running);
  }
  return out;
}
