// Detection rate of `witness diff` against the sampling frequency (issue 17: the default frequency
// is chosen by measurement). A default capture is 60 s of one busy thread, head + 2 replicates per
// version; at F Hz a capture holds ~60·F samples. Synthetic captures (test/fixtures/profiles/
// synthetic.ts: Zipf costs, shared leaves, ±5% load, per-function run-to-run CV ~1%, Poisson
// sampling): a 5%-share function gets +10% (and +20%) in the second version; a trial detects it
// when witness flags that function upward.
//
// Beside it, two ceilings for the same +10% data, to tell what costs power:
//   - "alone": witness's own test of that function (its p-value, variance estimated from the
//     replicates and moderated) at p ≤ 0.05, as if it were the only function tested — the price of
//     testing every function (weighted Holm) is the gap between this and the flag rate;
//   - "oracle": a test that knows in advance which function changed and the true run-to-run CV:
//     z = log ratio of its shares / √(1/Y_before + 1/Y_after + CV²·(1/3 + 1/3)), p ≤ 0.05 two-sided.
//     No valid test of these captures can beat it; what it misses is the Poisson limit of the depth.
// And the null: A/A (two independent draws of the same version) 'changed' and any function flagged.
//   bun bench/sample-rate-detection.ts [trials=12] [freqs=99,499,999]
import { diffCaptures } from "../src/witness/diff.ts";
import { normalCdf } from "../src/witness/stats/distributions.ts";
import type { Capture } from "../src/witness/model.ts";
import { makeProgram, rng, version } from "../test/fixtures/profiles/synthetic.ts";

const trials = Number(process.argv[2] ?? 12);
const freqs = (process.argv[3] ?? "99,499,999").split(",").map(Number);

/** Σ over captures of the target's self count and of the axis total. */
function pooled(cs: Capture[]): { y: number; total: number } {
  let y = 0;
  let total = 0;
  for (const c of cs) {
    const p = c.axes.cpu!;
    for (const s of p.stacks) {
      total += s.value;
      if (p.frames[s.frames[s.frames.length - 1]!]!.name === "target") y += s.value;
    }
  }
  return { y, total };
}

function oracleDetects(before: Capture[], after: Capture[], cv: number): boolean {
  const b = pooled(before);
  const a = pooled(after);
  const logRatio = Math.log(a.y / a.total) - Math.log(b.y / b.total);
  const se = Math.sqrt(1 / a.y + 1 / b.y + cv * cv * (1 / before.length + 1 / after.length));
  return logRatio > 0 && 2 * normalCdf(-Math.abs(logRatio / se)) <= 0.05;
}

const pct = (k: number) => `${k} of ${trials}`;
for (const f of freqs) {
  const samples = 60 * f;
  const hits: Record<string, number> = { "1.1": 0, "1.2": 0 };
  let alone = 0;
  let oracle = 0;
  let aaChanged = 0;
  let aaFlagged = 0;
  for (let t = 0; t < trials; t++) {
    const prog = makeProgram({ seed: 50_000 + t, stacks: 2000, leaves: 400, cv: 0.01, depth: 8, targetShare: 0.05 });
    const r = rng(60_000 + t);
    const A = version(prog, r, 3, { samples, name: "A" });
    const aa = diffCaptures({ before: A, after: version(prog, r, 3, { samples, name: "A2" }) });
    if (aa.verdict === "changed") aaChanged++;
    if (aa.changes.some((c) => c.flagged)) aaFlagged++;
    for (const k of Object.keys(hits)) {
      const C = version(prog, r, 3, { samples, change: { target: Number(k) }, name: "C" });
      const d = diffCaptures({ before: A, after: C });
      if (d.changes.some((c) => c.function === "target" && c.flagged && c.direction === "up")) hits[k]!++;
      if (k !== "1.1") continue;
      const own = d.changes.find((c) => c.function === "target" && c.kind === "self");
      if (own && own.p <= 0.05 && own.direction === "up") alone++;
      if (oracleDetects(A, C, prog.cv.get("target")!)) oracle++;
    }
  }
  console.log(
    `${f} Hz (~${samples} samples per capture, 3 v 3): +10% of a 5% function detected in ${pct(hits["1.1"]!)} ` +
      `(alone ${pct(alone)}, oracle ${pct(oracle)}), +20% in ${pct(hits["1.2"]!)}; A/A 'changed' ${pct(aaChanged)}, any function flagged ${pct(aaFlagged)}`,
  );
}
