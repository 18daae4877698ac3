// Peak RSS of `runner witness fold` and `witness diff` on 44 MB folded files, per executable, with
// the output's SHA-256 so two builds can be checked byte for byte in the same run.
//   bun bench/witness-memory.ts [RUNNER…]          (default: dist/runner; BENCH_MB=44)
// Inputs (test/fixtures/profiles/big-folded.ts): "distinct" (9 lines in 10 a new stack of 10–40
// frames: memory must hold each one), "shallow" (the same with 2–11 frames: ~940k distinct stacks,
// the cost per stack shows) and "repeated" (5,000 stacks repeated: streaming keeps memory flat).
// Peak RSS is read by a python3 parent (test/helpers/peak-rss.ts): spawned straight from Bun, a
// child reports Bun's own high-water mark. The parent's floor (`/bin/true` through it) is printed.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeBigFolded, type BigFoldedKind } from "../test/fixtures/profiles/big-folded.ts";
import { runWithPeakRss } from "../test/helpers/peak-rss.ts";

const runners = process.argv.slice(2).length ? process.argv.slice(2) : [resolve(import.meta.dir, "../dist/runner")];
const bytes = Number(process.env.BENCH_MB ?? 44) * 1e6;
const dir = mkdtempSync(join(tmpdir(), "witness-memory-"));
try {
  const files: Record<string, string> = {};
  for (const [name, kind, seed] of [["distinct-a", "distinct", 1], ["distinct-b", "distinct", 2], ["shallow-a", "shallow", 1], ["shallow-b", "shallow", 2], ["repeated", "repeated", 1]] as const) {
    files[name] = join(dir, `${name}.folded`);
    const { lines } = writeBigFolded(files[name]!, kind as BigFoldedKind, bytes, seed);
    console.log(`${name}.folded: ${(statSync(files[name]!).size / 1e6).toFixed(1)} MB, ${lines} lines`);
  }
  const cases: Array<[string, string[]]> = [
    ["fold distinct", ["fold", files["distinct-a"]!]],
    ["fold shallow", ["fold", files["shallow-a"]!]],
    ["fold repeated", ["fold", files.repeated!]],
    ["diff distinct (a vs b)", ["diff", "--before", files["distinct-a"]!, "--after", files["distinct-b"]!, "--json"]],
    ["diff shallow (a vs b)", ["diff", "--before", files["shallow-a"]!, "--after", files["shallow-b"]!, "--json"]],
    ["diff repeated (same file both sides)", ["diff", "--before", files.repeated!, "--after", files.repeated!, "--json"]],
  ];
  const floor = await runWithPeakRss(["true"]);
  console.log(`${new Date().toISOString()}, load average ${loadavg().map((x) => x.toFixed(2)).join(" ")}; floor of the method (/bin/true): ${floor.maxRssMiB.toFixed(1)} MiB`);
  console.log("| case | executable | exit | peak RSS MiB | CPU s | output bytes | output sha256 |");
  console.log("|---|---|---|---|---|---|---|");
  for (const [label, args] of cases) {
    for (const runner of runners) {
      const r = await runWithPeakRss([runner, "witness", ...args]);
      const sha = createHash("sha256").update(r.out).digest("hex").slice(0, 16);
      if (r.code !== 0) console.error(r.err.slice(0, 500));
      console.log(`| ${label} | ${runner} | ${r.code} | ${r.maxRssMiB.toFixed(0)} | ${r.cpuSec.toFixed(1)} | ${Buffer.byteLength(r.out)} | ${sha} |`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
