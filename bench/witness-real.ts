// Real captures: a C workload with a tunable slow function (bench/witness-workload.c), sampled
// with `perf record -g` (cpu-clock) — the collector-independent way to get real stacks here —
// folded, and diffed by witness. Versions: V1 (slow_path = BASE units), V1 again (A/A), V2 with
// slow_path +10% and V3 with slow_path doubled (bystander check). BASE 500 puts slow_path near
// 3% of CPU, 150 near 1%. Needs root (or perf_event_paranoid ≤ 1), cc and perf.
//   bun bench/witness-real.ts [captures per version=5] [seconds per capture=20] [frequency=20000] [BASE=500]
// WITNESS_REAL_KEEP=DIR keeps the folded captures for bench/witness-real-thinned.ts.
import { $ } from "bun";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseFolded } from "../src/witness/folded.ts";
import { diffCaptures } from "../src/witness/diff.ts";
import type { Capture } from "../src/witness/model.ts";

const N = Number(process.argv[2] ?? 5);
const SECONDS = Number(process.argv[3] ?? 20);
const HZ = Number(process.argv[4] ?? 20000);
const BASE = Number(process.argv[5] ?? 500);
const dir = mkdtempSync(join(tmpdir(), "witness-real-"));
const bin = join(dir, "workload");
await $`cc -O1 -fno-omit-frame-pointer -fno-inline -o ${bin} ${resolve(import.meta.dir, "witness-workload.c")}`.quiet();

/** `perf script` text → folded stacks (root first), keeping only the workload's own frames. */
function perfToFolded(text: string): string {
  const counts = new Map<string, number>();
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").filter((l) => l.startsWith("\t") || l.startsWith(" "));
    const frames = lines
      .map((l) => l.trim().split(/\s+/)[1] ?? "[unknown]")
      .map((s) => s.replace(/\+0x[0-9a-f]+$/, "").replace(/\.constprop\.\d+$/, ""))
      .reverse();
    if (!frames.length) continue;
    const key = frames.join(";");
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, v]) => `${k} ${v}`).join("\n") + "\n";
}

async function capture(slow: number, name: string): Promise<Capture> {
  const data = join(dir, `${name}.data`);
  await $`perf record -q -F ${HZ} -g -o ${data} -- ${bin} ${SECONDS} ${slow}`.quiet();
  const text = await $`perf script -i ${data} -F ip,sym`.quiet().text();
  const folded = perfToFolded(text);
  // WITNESS_REAL_KEEP=DIR keeps the folded captures (e.g. to re-run `runner witness diff` on them).
  if (process.env.WITNESS_REAL_KEEP) {
    mkdirSync(process.env.WITNESS_REAL_KEEP, { recursive: true });
    writeFileSync(join(process.env.WITNESS_REAL_KEEP, `${name}.folded`), folded);
  }
  const c = parseFolded(folded, "cpu", name);
  c.meta.measuredSec = SECONDS;
  rmSync(data);
  return c;
}

const t0 = performance.now();
const v1: Capture[] = [];
const v1b: Capture[] = [];
const v2: Capture[] = [];
const v3: Capture[] = [];
// Interleaved, so slow drifts of the machine hit every version alike.
for (let i = 0; i < N; i++) {
  v1.push(await capture(BASE, `v1-${i}`));
  v1b.push(await capture(BASE, `v1b-${i}`));
  v2.push(await capture(Math.round(BASE * 1.1), `v2-${i}`));
  v3.push(await capture(BASE * 2, `v3-${i}`));
}
const total = (c: Capture) => c.axes.cpu!.stacks.reduce((t, s) => t + s.value, 0);
const samples = [...v1, ...v1b, ...v2, ...v3].map(total);
console.log(`real: ${N} captures per version, ${SECONDS} s each at ${HZ} Hz; samples per capture ${Math.min(...samples)}–${Math.max(...samples)}; ${((performance.now() - t0) / 1000).toFixed(0)} s`);

function report(label: string, d: ReturnType<typeof diffCaptures>) {
  const f = d.changes.filter((c) => c.flagged);
  const sp = d.changes.find((c) => c.function === "slow_path" && c.kind === "self");
  const a = d.axes_compared[0]!;
  console.log(
    `${label}: verdict ${d.verdict}; flagged ${f.length} [${[...new Set(f.map((c) => c.function))].join(", ")}]; run-to-run CV ${(a.dispersion.run_to_run_cv * 100).toFixed(2)}%; ` +
      `slow_path ${sp ? `${(sp.before.share * 100).toFixed(2)}% share, ${(sp.relative_change * 100).toFixed(1)}% [${(sp.interval[0] * 100).toFixed(1)}, ${(sp.interval[1] * 100).toFixed(1)}] ${sp.flagged ? `flagged (${sp.confirmation})` : sp.verdict}` : "absent"}`,
  );
}
report("A/A  V1 vs V1", diffCaptures({ before: v1, after: v1b }));
report("+10% V1 vs V2", diffCaptures({ before: v1, after: v2 }));
report("x2   V1 vs V3", diffCaptures({ before: v1, after: v3 }));
// Every A/A pair of single captures (head vs head) with the prior: how often does anything flag?
let pairs = 0;
let flaggedPairs = 0;
for (const a of v1) for (const b of v1b) {
  pairs++;
  if (diffCaptures({ before: [a], after: [b] }).changes.some((c) => c.flagged)) flaggedPairs++;
}
console.log(`A/A single-capture pairs flagging anything: ${flaggedPairs}/${pairs}`);
rmSync(dir, { recursive: true, force: true });
