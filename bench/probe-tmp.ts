import { diffCaptures } from "../src/witness/diff.ts";
import * as T from "../test/fixtures/profiles/service-trials.ts";
const n = Number(process.argv[2] ?? 20);
const scen: [string, (t: number) => T.Trial, (r: any) => string][] = [
  ["interp sibling", T.interpreterSibling, (r) => T.causes(r).join(",")],
  ["5% +10%", T.fivePercentShare, (r) => T.causes(r).join(",")],
  ["A/A", T.sameVersion, (r) => r.verdict + ":" + T.causes(r).join(",")],
  ["-20/+40", T.improvementBesideRegression, (r) => T.causes(r).join(",")],
  ["six", T.sixShares, (r) => r.verdict + ":" + T.causes(r).join(",")],
];
for (const [name, build, judge] of scen) {
  const tally = new Map<string, number>();
  const t0 = performance.now();
  for (let t = 0; t < n; t++) {
    const tr = build(t);
    const r = diffCaptures(tr);
    const k = judge(r);
    tally.set(k, (tally.get(k) ?? 0) + 1);
  }
  console.log(name, ((performance.now() - t0) / n).toFixed(0) + "ms/trial", JSON.stringify([...tally].sort((a, b) => b[1] - a[1]).slice(0, 8)));
}
