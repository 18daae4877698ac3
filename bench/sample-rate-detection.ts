// Detection rate of `witness diff` against the sampling frequency (issue 17: the default frequency
// is chosen by measurement). A default capture is 60 s of one busy thread, head + 2 replicates per
// version; at F Hz a capture holds ~60·F samples. Synthetic captures (test/fixtures/profiles/
// synthetic.ts: Zipf costs, shared leaves, ±5% load, per-function run-to-run CV ~1%, Poisson
// sampling): a 5%-share function gets +10% (and +20%) in the second version; a trial detects it
// when witness flags that function upward.
//   bun bench/sample-rate-detection.ts [trials=12] [freqs=99,499,999]
import { diffCaptures } from "../src/witness/diff.ts";
import { makeProgram, rng, version } from "../test/fixtures/profiles/synthetic.ts";

const trials = Number(process.argv[2] ?? 12);
const freqs = (process.argv[3] ?? "99,499,999").split(",").map(Number);
for (const f of freqs) {
  const samples = 60 * f;
  const hits: Record<string, number> = { "1.1": 0, "1.2": 0 };
  let aaChanged = 0;
  for (let t = 0; t < trials; t++) {
    const prog = makeProgram({ seed: 50_000 + t, stacks: 2000, leaves: 400, cv: 0.01, depth: 8, targetShare: 0.05 });
    const r = rng(60_000 + t);
    const A = version(prog, r, 3, { samples, name: "A" });
    if (diffCaptures({ before: A, after: version(prog, r, 3, { samples, name: "A2" }) }).verdict === "changed") aaChanged++;
    for (const k of Object.keys(hits)) {
      const C = version(prog, r, 3, { samples, change: { target: Number(k) }, name: "C" });
      if (diffCaptures({ before: A, after: C }).changes.some((c) => c.function === "target" && c.flagged && c.direction === "up")) hits[k]!++;
    }
  }
  console.log(`${f} Hz (~${samples} samples per capture, 3 v 3): +10% of a 5% function detected in ${hits["1.1"]} of ${trials}, +20% in ${hits["1.2"]} of ${trials}; A/A 'changed' ${aaChanged} of ${trials}`);
}
