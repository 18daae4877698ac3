// Statistical figures of `witness diff` on synthetic captures with realistic over-dispersion
// (test/fixtures/profiles/synthetic.ts: Zipf costs, shared leaf functions, ±5% load between runs,
// per-function run-to-run CV drawn around `cv`, Poisson sampling).
// Peer, measured on the same captures: a plain differential profile (heads only, a function
// "changed" when its inclusive share moved ≥ 5% — what a differential flame graph colours).
//   bun bench/witness-stats.ts [trials=100] [cv=0.01] [stacks=2000] [leaves=400]
import { diffCaptures, type DiffOptions } from "../src/witness/diff.ts";
import { functionTotals } from "../src/witness/aggregate.ts";
import type { Capture } from "../src/witness/model.ts";
import { makeProgram, rng, version, type Program } from "../test/fixtures/profiles/synthetic.ts";

const trials = Number(process.argv[2] ?? 100);
const cv = Number(process.argv[3] ?? 0.01);
const stacks = Number(process.argv[4] ?? 2000);
const leaves = Number(process.argv[5] ?? 400);
const SAMPLES = 100_000;
const N = 5;

function plainFlags(b: Capture, a: Capture): number {
  const index = new Map<string, number>();
  const names: string[] = [];
  const tb = functionTotals(b.axes.cpu!, index, names);
  const ta = functionTotals(a.axes.cpu!, index, names);
  let k = 0;
  names.forEach((_, i) => {
    const sb = (tb.inclusive[i] ?? 0) / tb.total;
    const sa = (ta.inclusive[i] ?? 0) / ta.total;
    if (Math.max(sa, sb) >= 0.001 && Math.abs(sa / Math.max(sb, 1e-12) - 1) >= 0.05) k++;
  });
  return k;
}

function ancestors(p: Program, leaf: string): Set<string> {
  const s = new Set<string>();
  p.stacks.forEach((st, i) => {
    if (p.leaf[i] === leaf) st.forEach((f) => s.add(f));
  });
  return s;
}

const rate = (k: number) => `${((100 * k) / trials).toFixed(1)}%`;
const stats = { aa: 0, aa1: 0, aaPlain: 0, aaUniform: 0, power: 0, powerUniform: 0, powerPlain: 0, byst: 0, bystShare: 0, bystPlain: 0, doubled: 0, needed: [] as number[], aaVerdict: { changed: 0, unchanged: 0, insufficient: 0 }, testsM: 0 };
const uniform: DiffOptions = { weighting: "uniform" };
const t0 = performance.now();
for (let t = 0; t < trials; t++) {
  const prog = makeProgram({ seed: 10_000 + t, stacks, leaves, cv, depth: 8, targetShare: 0.01 });
  const r = rng(20_000 + t);
  const A = version(prog, r, N, { samples: SAMPLES, name: "A" });
  const B = version(prog, r, N, { samples: SAMPLES, name: "B" });
  // A/A
  const aa = diffCaptures({ before: A, after: B });
  stats.testsM += aa.multiple_testing.tests;
  if (aa.changes.some((c) => c.flagged)) stats.aa++;
  stats.aaVerdict[aa.verdict]++;
  if (aa.replicates_needed) stats.needed.push(aa.replicates_needed);
  if (diffCaptures({ before: A, after: B }, uniform).changes.some((c) => c.flagged)) stats.aaUniform++;
  if (diffCaptures({ before: A.slice(0, 1), after: B.slice(0, 1) }).changes.some((c) => c.flagged)) stats.aa1++;
  if (plainFlags(A[0]!, B[0]!) > 0) stats.aaPlain++;
  // Power: target (1% share) +10%
  const C = version(prog, r, N, { samples: SAMPLES, change: { target: 1.1 }, name: "C" });
  const hit = (o?: DiffOptions) => diffCaptures({ before: A, after: C }, o).changes.some((c) => c.function === "target" && c.flagged && c.direction === "up");
  if (hit()) stats.power++;
  if (hit(uniform)) stats.powerUniform++;
  {
    const index = new Map<string, number>();
    const names: string[] = [];
    const tb = functionTotals(A[0]!.axes.cpu!, index, names);
    const ta = functionTotals(C[0]!.axes.cpu!, index, names);
    const i = index.get("target")!;
    if ((ta.self[i] ?? 0) / ta.total / ((tb.self[i] ?? 0) / tb.total) - 1 >= 0.05) stats.powerPlain++;
  }
  // Bystanders: leaf_1 (~8% share) doubles
  const D = version(prog, r, N, { samples: SAMPLES, change: { leaf_1: 2 }, name: "D" });
  const dd = diffCaptures({ before: A, after: D });
  const anc = ancestors(prog, "leaf_1");
  if (dd.changes.some((c) => c.function === "leaf_1" && c.flagged)) stats.doubled++;
  if (dd.changes.some((c) => c.flagged && !anc.has(c.function))) stats.byst++;
  if (dd.changes.some((c) => c.normalisations.share?.flagged && !anc.has(c.function))) stats.bystShare++;
  {
    const index = new Map<string, number>();
    const names: string[] = [];
    const tb = functionTotals(A[0]!.axes.cpu!, index, names);
    const ta = functionTotals(D[0]!.axes.cpu!, index, names);
    if (names.some((n, i) => !anc.has(n) && (tb.inclusive[i] ?? 0) / tb.total >= 0.001 && Math.abs((ta.inclusive[i] ?? 0) / ta.total / ((tb.inclusive[i] ?? 0) / tb.total) - 1) >= 0.05)) stats.bystPlain++;
  }
}
const secs = (performance.now() - t0) / 1000;
const med = stats.needed.sort((a, b) => a - b)[Math.floor(stats.needed.length / 2)];
console.log(`synthetic: ${trials} trials, ${stacks} stacks / ${leaves} leaf functions, mean run-to-run CV ${cv * 100}%, load CV 5%, ${SAMPLES} samples per capture, ${N} captures per version; ~${Math.round(stats.testsM / trials)} distinct tests per diff; ${secs.toFixed(0)} s`);
console.log(`A/A comparisons flagging anything:        witness ${rate(stats.aa)} (5 v 5)   ${rate(stats.aa1)} (1 v 1, prior)   uniform-Holm ${rate(stats.aaUniform)}   plain diff ${rate(stats.aaPlain)}`);
console.log(`A/A verdicts (5 v 5): changed ${stats.aaVerdict.changed}, unchanged ${stats.aaVerdict.unchanged}, insufficient ${stats.aaVerdict.insufficient}; median replicates asked for when insufficient: ${med ?? "-"}`);
console.log(`power, 1%-share function +10%:            witness ${rate(stats.power)}   uniform-Holm ${rate(stats.powerUniform)}   plain diff (heads) ${rate(stats.powerPlain)}`);
console.log(`one function doubles: caught ${rate(stats.doubled)}; trials with a bystander flagged: witness ${rate(stats.byst)}   share normalisation ${rate(stats.bystShare)}   plain diff ${rate(stats.bystPlain)}`);
