// Benjamini–Yekutieli step-up: controls the false discovery rate at q under *any* dependence
// between tests (functions on one call path are strongly dependent: a callee's inclusive count is
// part of its caller's), at the price of the harmonic factor c(m) = Σ 1/i.

export function harmonic(m: number): number {
  let c = 0;
  for (let i = 1; i <= m; i++) c += 1 / i;
  return c;
}

/** BY-adjusted p-values (same order as the input). */
export function byAdjust(p: readonly number[]): number[] {
  const m = p.length;
  if (m === 0) return [];
  const cm = harmonic(m);
  const order = p.map((v, i) => i).sort((a, b) => p[b]! - p[a]!); // descending p
  const out = new Array<number>(m);
  let running = 1;
  for (let r = 0; r < m; r++) {
    const i = order[r]!;
    const rank = m - r; // ascending rank of p[i]
    running = Math.min(running, (p[i]! * m * cm) / rank);
    out[i] = Math.min(1, running);
  }
  return out;
}

/** The smallest-p threshold of BY at level q with m tests: the p a single discovery must beat. */
export function byFirstThreshold(m: number, q: number): number {
  return m > 0 ? q / (m * harmonic(m)) : q;
}
