// Issue 30: witness at the default capture shape, each promise measured over seeded trials, for each
// multiple-testing design and capture plan (test/fixtures/profiles/service-trials.ts; the same
// scenarios test/unit/witness-default-capture.test.ts runs 20 times each).
//   bun bench/witness-default-capture.ts [trials=100]
//   WITNESS_DIFF=/path/to/other/checkout/src/witness/diff.ts bun bench/witness-default-capture.ts
// runs another checkout's diff on the same captures (the design before issue 30: main before it landed).
import type { DiffOptions, DiffResult } from "../src/witness/diff-result.ts";
import type { Capture } from "../src/witness/model.ts";
import { fivePercentShare, improvementBesideRegression, interpreterSibling, sameVersion, sameVersionBursty, sixShares, type Trial } from "../test/fixtures/profiles/service-trials.ts";

const trials = Number(process.argv[2] ?? 100);
const source = process.env.WITNESS_DIFF ?? "../src/witness/diff.ts";
const { diffCaptures } = (await import(source)) as { diffCaptures: (i: { before: Capture[]; after: Capture[] }, o?: DiffOptions) => DiffResult };

/** Functions counted as changed: causes (or, in a diff without roles, anything flagged). */
const changed = (r: DiffResult) => new Set(r.changes.filter((c) => c.flagged).map((c) => c.function));
const SIBLINGS = /^(price_cart|parse_order|compute_tax|step_\d+)$/;

/** Keep the first `n` captures of each side: the plan with fewer replicates. */
const plan = (n: number) => (t: Trial): Trial => ({ before: t.before.slice(0, n), after: t.after.slice(0, n) });

interface Row {
  sibling: number;
  five: number;
  aaUnchanged: number;
  aaChanged: number;
  aabUnchanged: number;
  aabChanged: number;
  both: number;
  six: number;
}

function measure(opts: DiffOptions, perVersion: number): Row {
  const n = (build: (t: number) => Trial, ok: (r: DiffResult) => boolean, keep = plan(perVersion)) => {
    let k = 0;
    for (let t = 0; t < trials; t++) if (ok(diffCaptures(keep(build(t)), opts))) k++;
    return k;
  };
  return {
    sibling: n(interpreterSibling, (r) => [...changed(r)].some((f) => SIBLINGS.test(f))),
    five: n(fivePercentShare, (r) => changed(r).has("target")),
    aaUnchanged: n(sameVersion, (r) => r.verdict === "unchanged"),
    aaChanged: n(sameVersion, (r) => r.verdict === "changed"),
    aabUnchanged: n(sameVersionBursty, (r) => r.verdict === "unchanged"),
    aabChanged: n(sameVersionBursty, (r) => r.verdict === "changed"),
    both: n(improvementBesideRegression, (r) => changed(r).has("faster") && changed(r).has("slower")),
    // The six shares are three captures per version whatever the plan (they were measured so).
    six: n(sixShares, (r) => changed(r).has("apply_discounts"), (t) => t),
  };
}

const pc = (k: number) => `${Math.round((100 * k) / trials)}%`;
const t0 = performance.now();
console.log(`${trials} trials per cell, diff from ${source}`);
console.log("| design | captures per version | sibling flagged | +10% of 5% share flagged | A/A unchanged | A/A changed | A/A beside bursty: unchanged / changed | −20% and +40% both found | six shares flagged |");
console.log("|---|---|---|---|---|---|---|---|---|");
const designs: [string, DiffOptions][] = process.env.WITNESS_DIFF ? [["(other checkout's default)", {}]] : [["promise (default)", {}], ["detectability at 1% (before issue 30)", { weighting: "detectability" }], ["uniform Holm", { weighting: "uniform" }]];
for (const [name, opts] of designs) {
  for (const perVersion of [4, 5]) {
    const r = measure(opts, perVersion);
    console.log(`| ${name} | ${perVersion} | ${pc(r.sibling)} | ${pc(r.five)} | ${pc(r.aaUnchanged)} | ${pc(r.aaChanged)} | ${pc(r.aabUnchanged)} / ${pc(r.aabChanged)} | ${pc(r.both)} | ${pc(r.six)} |`);
  }
}
console.log(`(${((performance.now() - t0) / 1000).toFixed(0)} s)`);
