// Power, A/A and bystanders on *real* captures at a chosen depth: the folded captures kept by
// `WITNESS_REAL_KEEP=DIR bun bench/witness-real.ts …` (5 runs per version of a real workload,
// ~400k samples each) are binomially thinned to SAMPLES per capture, many times over. Thinning
// redraws the sampling noise at the lower depth and keeps everything real between runs (the
// run-to-run spread, kernel noise, the real +10% of slow_path), so each trial is what a Profiler
// sampling at that depth would have seen. The trials share the same 5 real runs per version: the
// figures are conditional on those runs, not a fresh machine each time.
//   bun bench/witness-real-thinned.ts DIR [trials=200] [samples=100000]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseFolded } from "../src/witness/folded.ts";
import { diffCaptures } from "../src/witness/diff.ts";
import { normal, rng } from "../test/fixtures/profiles/synthetic.ts";

const dir = process.argv[2];
if (!dir) throw new Error("usage: bun bench/witness-real-thinned.ts DIR [trials] [samples]");
const trials = Number(process.argv[3] ?? 200);
const SAMPLES = Number(process.argv[4] ?? 100_000);
const N = 5;

type Folded = { stack: string; count: number }[];
const load = (name: string): Folded =>
  readFileSync(join(dir, `${name}.folded`), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const i = l.lastIndexOf(" ");
      return { stack: l.slice(0, i), count: Number(l.slice(i + 1)) };
    });
const versions = Object.fromEntries(["v1", "v1b", "v2", "v3"].map((v) => [v, Array.from({ length: N }, (_, i) => load(`${v}-${i}`))])) as Record<string, Folded[]>;

function binomial(r: () => number, n: number, p: number): number {
  if (n < 40) {
    let k = 0;
    for (let i = 0; i < n; i++) if (r() < p) k++;
    return k;
  }
  return Math.min(n, Math.max(0, Math.round(n * p + Math.sqrt(n * p * (1 - p)) * normal(r))));
}

function thin(f: Folded, r: () => number, name: string) {
  const total = f.reduce((t, s) => t + s.count, 0);
  const p = Math.min(1, SAMPLES / total);
  const text = f.map((s) => `${s.stack} ${binomial(r, s.count, p)}`).filter((l) => !l.endsWith(" 0")).join("\n");
  const c = parseFolded(text + "\n", "cpu", name);
  c.meta.measuredSec = 20 * p;
  return c;
}

// Functions on any stack through slow_path (its callers and callees) really change with it.
const related = new Set<string>();
for (const c of versions.v1!) for (const s of c) if (s.stack.split(";").includes("slow_path")) for (const fn of s.stack.split(";")) related.add(fn);

const r = rng(4242);
const stats = { aa: 0, power: 0, byst: 0, doubled: 0 };
let shareSum = 0;
const t0 = performance.now();
for (let t = 0; t < trials; t++) {
  const side = (v: string) => versions[v]!.map((f, i) => thin(f, r, `${v}-${i}`));
  const v1 = side("v1");
  const aa = diffCaptures({ before: v1, after: side("v1b") });
  if (aa.changes.some((c) => c.flagged)) stats.aa++;
  const up = diffCaptures({ before: v1, after: side("v2") });
  const sp = up.changes.find((c) => c.function === "slow_path" && c.kind === "self");
  shareSum += sp?.before.share ?? 0;
  if (sp?.flagged && sp.direction === "up") stats.power++;
  const x2 = diffCaptures({ before: v1, after: side("v3") });
  if (x2.changes.some((c) => c.function === "slow_path" && c.flagged)) stats.doubled++;
  if (x2.changes.some((c) => c.flagged && !related.has(c.function))) stats.byst++;
}
const pct = (k: number) => `${((100 * k) / trials).toFixed(1)}%`;
console.log(`real captures thinned to ${SAMPLES} samples, ${N} per version, ${trials} trials, slow_path ≈ ${((100 * shareSum) / trials).toFixed(2)}% share; ${((performance.now() - t0) / 1000).toFixed(0)} s`);
console.log(`A/A flagging anything ${pct(stats.aa)}; slow_path +10% flagged ${pct(stats.power)}; ×2 caught ${pct(stats.doubled)}, trials with a bystander ${pct(stats.byst)}`);
