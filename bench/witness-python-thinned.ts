// Why a Python function made 30% slower can be missed (issue 18): real ptop captures of
// test/fixtures py_svc.py (kept by `PYDIFF_KEEP=DIR` on test/live/ptop-python-diff.test.ts, 5 per
// version), binomially thinned to fewer cpu samples per capture, as a loaded host gives (the cpu
// axis only samples the thread while it runs: at load 25 on 2 cores a 5 s capture at 999 Hz held
// ~2,700 samples, at heavier load far fewer). Thinning redraws the sampling noise and keeps the
// real run-to-run spread. Per depth: how often apply_discounts (cpu inclusive) is flagged up, and
// A/A (v1 captures 0-2 against v1 captures 3-4, thinned the same way) 'changed'.
//   bun bench/witness-python-thinned.ts DIR [trials=100] [samples=2700,1000,500,250]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseProfile } from "../src/witness/parse.ts";
import { diffCaptures } from "../src/witness/diff.ts";
import type { Capture } from "../src/witness/model.ts";
import { normal, rng } from "../test/fixtures/profiles/synthetic.ts";

const dir = process.argv[2];
if (!dir) throw new Error("usage: bun bench/witness-python-thinned.ts DIR [trials] [samples,…]");
const trials = Number(process.argv[3] ?? 100);
const depths = (process.argv[4] ?? "2700,1000,500,250").split(",").map(Number);
const load = (v: string) => Array.from({ length: 5 }, (_, i) => parseProfile(readFileSync(join(dir, `svc-v${v}-${i}.jsonl`)), `svc-v${v}-${i}.jsonl`));
const v1 = load("1");
const v2 = load("2");

function binomial(r: () => number, n: number, p: number): number {
  if (n < 40) {
    let k = 0;
    for (let i = 0; i < n; i++) if (r() < p) k++;
    return k;
  }
  return Math.min(n, Math.max(0, Math.round(n * p + Math.sqrt(n * p * (1 - p)) * normal(r))));
}

function thin(c: Capture, r: () => number, samples: number): Capture {
  const cpu = c.axes.cpu!;
  const total = cpu.stacks.reduce((t, s) => t + s.value, 0);
  const p = Math.min(1, samples / total);
  const stacks = cpu.stacks.map((s) => ({ ...s, value: binomial(r, s.value, p) })).filter((s) => s.value > 0);
  return { ...c, axes: { cpu: { ...cpu, stacks } }, meta: { ...c.meta, measuredSec: (c.meta.measuredSec ?? 5) * p } };
}

const counts = (cs: Capture[]) => cs.map((c) => c.axes.cpu!.stacks.reduce((t, s) => t + s.value, 0));
console.log(`real captures: v1 ${counts(v1).join(" ")}, v2 ${counts(v2).join(" ")} cpu samples`);
for (const samples of depths) {
  const r = rng(1800 + samples);
  let hit = 0;
  let aa = 0;
  const adj: number[] = [];
  for (let t = 0; t < trials; t++) {
    const d = diffCaptures({ before: v1.map((c) => thin(c, r, samples)), after: v2.map((c) => thin(c, r, samples)) });
    const own = d.changes.find((c) => c.axis === "cpu" && c.kind === "inclusive" && c.function === "apply_discounts");
    if (own?.flagged && own.direction === "up") hit++;
    adj.push(own?.adjusted_p ?? 1);
    const a = diffCaptures({ before: v1.slice(0, 3).map((c) => thin(c, r, samples)), after: v1.slice(3).map((c) => thin(c, r, samples)) });
    if (a.verdict === "changed") aa++;
  }
  adj.sort((a, b) => a - b);
  console.log(`~${samples} samples per capture, 5 v 5: apply_discounts flagged up in ${hit} of ${trials} (median adjusted p ${adj[trials >> 1]!.toPrecision(2)}); A/A (3 v 2) 'changed' ${aa} of ${trials}`);
}
