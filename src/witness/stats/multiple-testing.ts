// Weighted Holm (Holm 1979): controls the family-wise error rate — the chance that *any* flagged
// function is unchanged — at q, under any dependence between tests. That matters here: functions
// on one call path are strongly dependent (a callee's inclusive count is part of its caller's),
// and the claim a diff makes is "these functions changed", where one wrong name misleads a reader.
//
// Why not a false-discovery-rate procedure: a version diff usually has a handful of real changes.
// Benjamini–Yekutieli (FDR under any dependence) pays c(m) = Σ 1/i ≈ 5.6 at 150 tests on its first
// step, so a lone change needs p ≤ q/(m·c(m)); Holm's first step is q/m, 5.6× easier, and it
// gives the stronger guarantee. BY only wins with dozens of real changes, which a diff flags anyway
// (their p-values are tiny). Benjamini–Hochberg is cheaper still but lets one real discovery lower
// the bar for its neighbours: bystanders get flagged next to a doubled function.
//
// Weights (mean 1) spend q unevenly (weights.ts): test i is rejected when p_i ≤ w_i·q / Σ w over
// the tests not yet rejected, in order of p_i / w_i.

/** Weighted Holm adjusted p-values (same order as the input): flagged ⇔ adjusted ≤ q. */
export function holmAdjust(p: readonly number[], w?: readonly number[]): number[] {
  const m = p.length;
  if (m === 0) return [];
  const weight = w ?? p.map(() => 1);
  const order = p.map((_, i) => i).sort((a, b) => p[a]! / weight[a]! - p[b]! / weight[b]!);
  let remaining = weight.reduce((a, b) => a + b, 0);
  const out = new Array<number>(m);
  let running = 0;
  for (const i of order) {
    running = Math.max(running, Math.min(1, (p[i]! * remaining) / weight[i]!));
    out[i] = running;
    remaining -= weight[i]!;
  }
  return out;
}
