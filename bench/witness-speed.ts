// Speed of `witness diff` on big captures: two captures of 1M samples over 50k distinct stacks.
// Peer, measured in the same run: a plain differential profile (per-function share difference, no
// statistics) — what every differential flame graph computes. Prints both and the ratio.
//   bun bench/witness-speed.ts [program stacks=90000 (≈50k distinct sampled)] [samples=1000000]
import { diffCaptures } from "../src/witness/diff.ts";
import { functionTotals } from "../src/witness/aggregate.ts";
import { toPprof, parsePprof } from "../src/witness/pprof.ts";
import { toStream, parseStream } from "../src/witness/stream.ts";
import { axisTotal, type Capture } from "../src/witness/model.ts";
import { makeProgram, rng, sampleCapture } from "../test/fixtures/profiles/synthetic.ts";

const stacks = Number(process.argv[2] ?? 90_000);
const samples = Number(process.argv[3] ?? 1_000_000);
const prog = makeProgram({ seed: 3, stacks, leaves: Math.round(stacks / 10), cv: 0.01, depth: 10 });
const r = rng(9);
const before = sampleCapture(prog, r, { samples, name: "before" });
const after = sampleCapture(prog, r, { samples, change: { leaf_3: 1.2 }, name: "after" });
const count = (c: Capture) => c.axes.cpu!.stacks.length;
const total = (c: Capture) => axisTotal(c.axes.cpu!);
console.log(`${new Date().toISOString()}, load average ${(await import("node:os")).loadavg().map((x) => x.toFixed(2)).join(" ")}`);
console.log(`captures: ${total(before)} / ${total(after)} samples, ${count(before)} / ${count(after)} distinct stacks, ${prog.leaf.length} stacks in program`);

function plainDiff(b: Capture, a: Capture) {
  const index = new Map<string, number>();
  const names: string[] = [];
  const tb = functionTotals(b.axes.cpu!, index, names);
  const ta = functionTotals(a.axes.cpu!, index, names);
  return names.map((n, i) => ({ n, d: (ta.inclusive[i] ?? 0) / ta.total - (tb.inclusive[i] ?? 0) / tb.total })).sort((x, y) => Math.abs(y.d) - Math.abs(x.d));
}

function best(fn: () => unknown, reps = 5): number {
  let t = Infinity;
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    fn();
    t = Math.min(t, performance.now() - t0);
  }
  return t;
}

const tDiff = best(() => diffCaptures({ before: [before], after: [after] }));
const tPlain = best(() => plainDiff(before, after));
const pb = [toPprof(before), toPprof(after)];
const st = [toStream(before), toStream(after)];
const tPprofDiff = best(() => diffCaptures({ before: [parsePprof(pb[0]!)], after: [parsePprof(pb[1]!)] }), 3);
const tStreamDiff = best(() => diffCaptures({ before: [parseStream(st[0]!)], after: [parseStream(st[1]!)] }), 3);
const d = diffCaptures({ before: [before], after: [after] });
console.log(`tests: ${d.multiple_testing.tests}, flagged: ${d.changes.filter((c) => c.flagged).length}, verdict: ${d.verdict}`);
console.log(`witness diff (in memory):          ${tDiff.toFixed(0)} ms`);
console.log(`plain share diff (peer, in memory): ${tPlain.toFixed(0)} ms   ratio ${(tDiff / tPlain).toFixed(1)}x`);
console.log(`parse 2 pprof (${(pb[0]!.length / 1e6).toFixed(1)} MB each) + diff: ${tPprofDiff.toFixed(0)} ms`);
console.log(`parse 2 streams (${(st[0]!.length / 1e6).toFixed(1)} MB each) + diff: ${tStreamDiff.toFixed(0)} ms`);
