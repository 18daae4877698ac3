// Interpreted functions (Python frames from ptop) are never a stack's leaf: the interpreter's C
// functions beneath them are. A sample belongs to its deepest Python frame (aggregate.ts, own), so
// a Python function's self test is its own bytecode time, tested in the primary ("self") Holm
// family and pooled for the dispersion; its inclusive count, when it calls other Python functions,
// is an aggregate of theirs. Seeded simulations: each count below is fixed for these seeds and
// fails if the design is broken.
import { describe, expect, test } from "bun:test";
import { diffCaptures } from "../../src/witness/diff.ts";
import { buildAxisMatrix, selectHypotheses, type AxisMatrix } from "../../src/witness/diff/axis-matrix.ts";
import { resolveDiffSettings } from "../../src/witness/diff/settings.ts";
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";

const s = resolveDiffSettings();
const matrix = (o: ReturnType<typeof buildAxisMatrix>): AxisMatrix => {
  if (!("matrix" in o)) throw new Error(o.notCompared.reason);
  return o.matrix;
};

describe("interpreted functions: their inclusive count is their own cost", () => {
  test("stage 1: a Python function's own count is its self test, an own-cost test; a Python caller's inclusive count is an aggregate", () => {
    const p = makeProgram({ seed: 3, stacks: 60, leaves: 20, cv: 0.01, depth: 4 });
    const r = rng(3);
    const py = matrix(buildAxisMatrix({ before: version(p, r, 2, { samples: 20_000, interpreted: true }), after: version(p, r, 2, { samples: 20_000, interpreted: true }) }, "cpu"));
    const t = selectHypotheses(py, s);
    const of = (kind: string, prefix: string) => t.hyps.filter((h) => h.kind === kind && py.names[h.fn]!.startsWith(prefix));
    // The deepest Python callers (fn_2_*) own their samples; the ones above them (fn_1_*) own none.
    expect(of("self", "fn_2_").length).toBeGreaterThan(2);
    expect(of("self", "fn_2_").every((h) => t.ownKeys.has(h.key))).toBe(true);
    expect(of("self", "fn_1_")).toEqual([]);
    expect(of("inclusive", "fn_1_").some((h) => t.ownKeys.has(h.key))).toBe(false);
    // The native leaves beneath them are shared C code in Python stacks: their self counts are aggregates.
    expect(of("self", "leaf_").length).toBeGreaterThan(2);
    expect(of("self", "leaf_").some((h) => t.ownKeys.has(h.key))).toBe(false);
    expect(py.interpreted[py.names.indexOf("main")]).toBe(false);
  });

  // Python-shaped programs: main → 3 interpreted callers (4 of each at each depth) → a native leaf, Zipf leaf costs,
  // ±5% load and ~1.5% per-function run-to-run CV, 5 captures per version of 1,500 samples
  // (what a 5 s capture at 999 Hz holds when a loaded host gives the target 30% of a core).
  const programs = Array.from({ length: 40 }, (_, i) => makeProgram({ seed: 7000 + i, stacks: 150, leaves: 40, cv: 0.015, depth: 4 }));
  const opts = { samples: 1_500, interpreted: true };

  test("A/A: identical-distribution captures are not 'changed' and flag nothing in ≥ 95% of 40 trials", () => {
    let changed = 0;
    let flagged = 0;
    programs.forEach((p, i) => {
      const r = rng(7100 + i);
      const d = diffCaptures({ before: version(p, r, 5, opts), after: version(p, r, 5, opts) });
      if (d.verdict === "changed") changed++;
      if (d.changes.some((c) => c.flagged)) flagged++;
    });
    expect(changed).toBeLessThanOrEqual(2);
    expect(flagged).toBeLessThanOrEqual(2);
  }, 60_000);

  // Every leaf is shared by several callers, as the interpreter's C functions are shared by every
  // Python function, and the Python functions below the slowed one are called from its siblings
  // too: the own counts of those callees move (diluted), the cause is the caller they share.
  // Where the slowed caller holds more than half of the axis, no median can tell its change from
  // its siblings' opposite one (fewer than half the samples are unchanged work): those programs
  // are left out (14 of 40 here).
  test("an interpreted caller made 30% slower is the cause in ≥ 7 of 10 trials; nothing outside its stacks flagged up", () => {
    let trials = 0;
    let hit = 0;
    let bystandersUp = 0;
    programs.forEach((p, i) => {
      const r = rng(7200 + i);
      const slowed = "fn_1_0";
      const d = diffCaptures({ before: version(p, r, 5, opts), after: version(p, r, 5, { ...opts, changeThrough: { [slowed]: 1.3 } }) });
      const own = d.changes.find((c) => c.function === slowed && c.kind === "inclusive")!;
      if (own.before.share > 0.45) return;
      trials++;
      if (own.flagged && own.role === "cause" && own.direction === "up") hit++;
      const related = new Set(p.stacks.filter((st) => st.includes(slowed)).flat());
      if (d.changes.some((c) => c.flagged && c.direction === "up" && !related.has(c.function))) bystandersUp++;
    });
    expect(trials).toBe(26);
    expect(hit).toBeGreaterThanOrEqual(19); // 19 of 26 here
    expect(bystandersUp).toBe(0);
  }, 60_000);
});
