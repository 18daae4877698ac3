// Each stage of `diffCaptures` on its own (src/witness/diff/): the matrices, the hypotheses, the
// normalisation fits, weighted Holm per family, the changes with their confirmation, the verdict.
import { describe, expect, test } from "bun:test";
import type { AxisProfile, Capture } from "../../src/witness/model.ts";
import { ALLOC_SAMPLE_PERIOD, axesOf, buildAxisMatrix, countingQuantum, selectHypotheses, type AxisMatrix } from "../../src/witness/diff/axis-matrix.ts";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { chooseNormalisation, fitNormalisation, sizeFactors } from "../../src/witness/diff/normalisation-fit.ts";
import { familyLevels, isFocus, weightedHolmByFamily } from "../../src/witness/diff/holm-families.ts";
import { changeVerdict, confirmation, sideSummary, planFamily, axisChanges, axisPower } from "../../src/witness/diff/changes.ts";
import { overallVerdict } from "../../src/witness/diff/verdict.ts";
import { resolveDiffSettings } from "../../src/witness/diff/settings.ts";
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";
import type { AxisReport, Change } from "../../src/witness/diff-result.ts";

/** A cpu axis from leaf→count (each function called from main). */
function axis(counts: Record<string, number>, unit: AxisProfile["unit"] = "samples"): AxisProfile {
  const frames = [{ name: "main" }, ...Object.keys(counts).map((name) => ({ name }))];
  return { axis: "cpu", unit, frames, stacks: Object.values(counts).map((value, i) => ({ frames: [0, i + 1], value })) };
}
function capture(name: string, axes: Record<string, AxisProfile>, missing: { axis: string; reason: string }[] = [], measuredSec?: number): Capture {
  return { meta: { source: "stream", name, partial: false, ...(measuredSec ? { measuredSec } : {}) }, axes, missing };
}
function matrixOf(before: Capture[], after: Capture[], ax = "cpu"): AxisMatrix {
  const o = buildAxisMatrix({ before, after }, ax);
  if ("notCompared" in o) throw new Error(o.notCompared.reason);
  return o.matrix;
}
const s = resolveDiffSettings();

describe("settings", () => {
  test("defaults are filled in, given values kept", () => {
    expect(s).toEqual({ normalisation: "median-ratio", q: 0.05, minEffect: 0.05, minShare: 0.001, minCount: 5, priorDispersion: 0.01, detectEffect: 0.1, detectShare: 0.01, targetPower: 0.8, weighting: "detectability" });
    expect(resolveDiffSettings({ q: 0.1, weighting: "uniform" })).toMatchObject({ q: 0.1, weighting: "uniform", minEffect: 0.05 });
  });
});

describe("stage 1: axis matrices", () => {
  test("counting quantum: 1 ms for nanoseconds, 1 KiB for bytes, 1 otherwise", () => {
    expect(countingQuantum("nanoseconds")).toBe(1e6);
    expect(countingQuantum("bytes")).toBe(1024);
    expect(countingQuantum("samples")).toBe(1);
  });
  test("axes: every present or missing axis, sorted", () => {
    expect(axesOf([capture("a", { cpu: axis({ f: 1 }) }, [{ axis: "offcpu", reason: "x" }]), capture("b", { alloc: axis({ f: 1 }) })])).toEqual(["alloc", "cpu", "offcpu"]);
  });
  test("self and inclusive counts per function per capture, in quanta, aligned on one name index", () => {
    const m = matrixOf([capture("b0", { cpu: axis({ f: 10, g: 4 }, "nanoseconds") })], [capture("a0", { cpu: axis({ g: 2e6, h: 3e6 }, "nanoseconds") })]);
    expect(m.quantum).toBe(1e6);
    expect(m.names).toEqual(["main", "f", "g", "h"]);
    expect([...m.self[3]!]).toEqual([0, 3]);
    expect([...m.inclusive[0]!]).toEqual([14 / 1e6, 5]);
    expect(m.totals).toEqual([14 / 1e6, 5]);
    expect(m.cols).toEqual({ before: [0], after: [1] });
  });
  test("an axis a head lacks is not compared, naming the head and the missing reason", () => {
    const o = buildAxisMatrix({ before: [capture("b0", { cpu: axis({ f: 1 }) })], after: [capture("a0", {}, [{ axis: "cpu", reason: "perf_event_open denied" }])] }, "cpu");
    expect(o).toEqual({ notCompared: { axis: "cpu", reason: "absent from after head a0: perf_event_open denied" } });
  });
  test("a replicate without the axis is excluded, the rest compared", () => {
    const m = matrixOf([capture("b0", { cpu: axis({ f: 1 }) }), capture("b1", {})], [capture("a0", { cpu: axis({ f: 1 }) })]);
    expect(m.before.length).toBe(1);
    expect(m.excluded).toEqual([{ capture: "b1", reason: "absent from before replicate b1" }]);
  });
  test("a capture with no samples makes the axis not comparable", () => {
    const o = buildAxisMatrix({ before: [capture("b0", { cpu: axis({ f: 1 }) })], after: [capture("a0", { cpu: axis({ f: 1 }) }), capture("a1", { cpu: axis({ f: 0 }) })] }, "cpu");
    expect(o).toEqual({ notCompared: { axis: "cpu", reason: "capture a1 has no samples on this axis" } });
  });
  test("hypotheses: below the floor untested, identical vectors one test, placeholders skipped", () => {
    const counts = { f: 500, g: 300, "[unknown] 0x1": 100, rare: 1 };
    const m = matrixOf([capture("b0", { cpu: axis(counts) })], [capture("a0", { cpu: axis(counts) })]);
    const t = selectHypotheses(m, s);
    const tested = t.hyps.map((h) => `${m.names[h.fn]}/${h.kind}`);
    expect(tested).toEqual(["main/inclusive", "f/self", "f/inclusive", "g/self", "g/inclusive"]);
    expect(t.distinct.length).toBe(3); // a leaf's self = inclusive
    expect(t.untested).toBe(1); // rare
    expect(t.selfKeys.size).toBe(2);
    expect(t.sumT).toBe(1802);
  });
});

describe("stage 2–3: normalisation fits", () => {
  const p = makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 });
  const r = rng(5);
  const before = version(p, r, 3, { samples: 100_000 });
  const after = version(p, r, 3, { samples: 100_000, change: { target: 1.5 } });
  const m = matrixOf(before, after);
  const tests = selectHypotheses(m, s);

  test("share always; median-ratio with ≥5 common functions; rate only with every measured time", () => {
    const f = sizeFactors(m);
    expect(Object.keys(f).sort()).toEqual(["median-ratio", "rate", "share"]);
    const folded = matrixOf([capture("b0", { cpu: axis({ f: 5, g: 5 }) })], [capture("a0", { cpu: axis({ f: 5, g: 6 }) })]);
    expect(Object.keys(sizeFactors(folded))).toEqual(["share"]);
    expect(chooseNormalisation(sizeFactors(folded), "rate").note).toContain("measured time");
    expect(chooseNormalisation(sizeFactors(folded), "median-ratio")).toMatchObject({ used: "share" });
    expect(chooseNormalisation(f, "rate")).toEqual({ used: "rate" });
    // cpu (bytes per unit of CPU) exists for the alloc axis only; elsewhere the note says so.
    expect(chooseNormalisation(sizeFactors(folded), "cpu")).toEqual({ used: "share", note: "cpu normalisation needs the alloc axis and a cpu axis in every capture, share used instead" });
  });
  test("with replicates the pool is measured; without, the prior stands in and tests are not moderated", () => {
    const fit = fitNormalisation("median-ratio", sizeFactors(m)["median-ratio"]!, m.cols, tests, { usePrior: false, priorAlpha: 0.01 });
    expect(fit.tests.length).toBe(tests.distinct.length);
    expect(fit.prior.atoms).toBeGreaterThan(0);
    expect(fit.alpha0).not.toBe(0.01);
    expect(fit.variance).not.toBeNull();
    const prior = fitNormalisation("share", sizeFactors(m).share!, m.cols, tests, { usePrior: true, priorAlpha: 0.02 });
    expect(prior.alpha0).toBe(0.02);
    expect(prior.variance).toBeNull();
    expect(prior.tests.every((t) => t.phi === 1 && t.df === Infinity)).toBe(true);
  });
});

describe("stage 4: weighted Holm per family", () => {
  test("each family spends its own share of q", () => {
    expect(familyLevels(0.05).self).toBeCloseTo(0.04, 12);
    expect(familyLevels(0.05).inclusive).toBeCloseTo(0.01, 12);
  });
  test("focus: a vector near the detect share or above", () => {
    expect(isFocus(new Float64Array([50, 50]), 1000, 0.01)).toBe(true);
    expect(isFocus(new Float64Array([0, 1]), 1000, 0.01)).toBe(false);
  });
  test("the changed function is flagged in the self family; family sizes split the distinct tests", () => {
    const p = makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 });
    const r = rng(5);
    const m = matrixOf(version(p, r, 3, { samples: 100_000 }), version(p, r, 3, { samples: 100_000, change: { target: 1.5 } }));
    const tests = selectHypotheses(m, s);
    const fit = fitNormalisation("median-ratio", sizeFactors(m)["median-ratio"]!, m.cols, tests, { usePrior: false, priorAlpha: 0.01 });
    const w = { tests, fit };
    for (const weighting of ["detectability", "uniform"] as const) {
      const run = weightedHolmByFamily([w], (x) => x.fit, { ...s, weighting });
      expect(run.sizes.self + run.sizes.inclusive).toBe(tests.distinct.length);
      expect(run.sizes.self).toBe(tests.selfKeys.size);
      const target = tests.hyps.find((h) => m.names[h.fn] === "target" && h.kind === "self")!;
      const out = run.byAxis.get(w)!;
      expect(out.flagged[target.key]).toBe(true);
      expect(out.adjusted[target.key]).toBeLessThanOrEqual(s.q);
      expect(out.adjusted.every((a) => a >= 0 && a <= 1)).toBe(true);
    }
    expect(weightedHolmByFamily([w], () => undefined, s).byAxis.size).toBe(0);
  });
});

describe("stage 5: changes and confirmation", () => {
  test("side summary: mean value, share of the axis, rate only with every measured time", () => {
    const m = matrixOf([capture("b0", { cpu: axis({ f: 10, g: 30 }) }, [], 2)], [capture("a0", { cpu: axis({ f: 20, g: 20 }) })]);
    const f = m.self[1]!;
    expect(sideSummary(m, f, [0])).toEqual({ value: 10, share: 0.25, rate: 5 });
    expect(sideSummary(m, f, [1]).rate).toBeNull();
  });
  test("a change's own verdict: changed when flagged, unchanged inside ±min effect, else insufficient", () => {
    expect(changeVerdict(true, 0.3, 0.6, 0.05)).toBe("changed");
    expect(changeVerdict(false, -0.02, 0.03, 0.05)).toBe("unchanged");
    expect(changeVerdict(false, -0.02, 0.2, 0.05)).toBe("insufficient");
  });
  test("changes, confirmation by a later replicate, power of the axis", () => {
    const p = makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 });
    const r = rng(5);
    const m = matrixOf(version(p, r, 3, { samples: 100_000 }), version(p, r, 3, { samples: 100_000, change: { target: 1.5 } }));
    const tests = selectHypotheses(m, s);
    const fit = fitNormalisation("median-ratio", sizeFactors(m)["median-ratio"]!, m.cols, tests, { usePrior: false, priorAlpha: 0.01 });
    const target = tests.hyps.find((h) => m.names[h.fn] === "target" && h.kind === "self")!;
    expect(confirmation(target.y, fit, fit.tests[target.key]!)).toBe("confirmed");
    const lone = { ...fit, groups: { ...fit.groups, after: fit.groups.after.slice(0, 1) } };
    expect(confirmation(target.y, lone, fit.tests[target.key]!)).toBe("suspect");

    const report = { axis: "cpu", unit: "samples", captures: { before: 3, after: 3 }, flagged: 0, flagged_by_normalisation: {}, power: 0, replicates_needed: null } as unknown as AxisReport;
    const w = { report, matrix: m, tests, fits: [fit], verdict: fit };
    const run = weightedHolmByFamily([w], (x) => x.verdict, s);
    const changes = axisChanges(w, run.byAxis.get(w)!, new Map([["median-ratio", run.byAxis]]), s.minEffect);
    expect(changes.length).toBe(tests.hyps.length);
    const top = changes.find((c) => c.function === "target" && c.kind === "self")!;
    expect(top).toMatchObject({ flagged: true, verdict: "changed", direction: "up", confirmation: "confirmed" });
    expect(top.interval[0]).toBeLessThan(0.5);
    expect(top.interval[1]).toBeGreaterThan(0.5);
    expect(report.flagged).toBe(changes.filter((c) => c.flagged).length);
    expect(report.flagged_by_normalisation["median-ratio"]).toBe(report.flagged);
    const pw = axisPower(w, planFamily([w], s.detectShare), run.sizes, s);
    expect(pw.power).toBeGreaterThan(0);
    expect(pw.power).toBeLessThanOrEqual(1);
  });
});

describe("stage 6: verdict", () => {
  const ax = (power: number, replicates_needed: number | null) => ({ power, replicates_needed }) as AxisReport;
  const flagged = [{ flagged: true }] as Change[];
  test("no axis compared is insufficient", () => {
    expect(overallVerdict([], [], s)).toMatchObject({ verdict: "insufficient", reason: "no axis is present in both head captures", minPower: 0 });
  });
  test("anything flagged is changed", () => {
    expect(overallVerdict([ax(0.1, 9)], flagged, s).verdict).toBe("changed");
  });
  test("the reason counts functions as a reader does, not tests (self and total, several axes)", () => {
    const three = [
      { function: "parse", axis: "cpu", kind: "self", flagged: true },
      { function: "parse", axis: "cpu", kind: "inclusive", flagged: true },
      { function: "parse", axis: "offcpu", kind: "inclusive", flagged: true },
      { function: "render", axis: "cpu", kind: "self", flagged: false },
    ] as Change[];
    expect(overallVerdict([ax(0.9, 3)], three, s).reason).toStartWith("1 function changed on cpu, offcpu: 3 self or total costs clear the noise floor");
    expect(overallVerdict([ax(0.9, 3)], [{ function: "a", axis: "cpu", kind: "self", flagged: true }, { function: "b", axis: "cpu", kind: "self", flagged: true }] as Change[], s).reason).toStartWith("2 functions changed on cpu: 2 self or total costs clear");
  });
  test("nothing flagged with power is unchanged; without it insufficient, naming the captures that would decide", () => {
    expect(overallVerdict([ax(0.9, 3), ax(0.85, 3)], [], s)).toMatchObject({ verdict: "unchanged", minPower: 0.85 });
    const v = overallVerdict([ax(0.5, 4), ax(0.3, 7)], [], s);
    expect(v).toMatchObject({ verdict: "insufficient", needed: 7 });
    expect(v.reason).toContain("7 captures per version would decide");
    expect(overallVerdict([ax(0.5, null)], [], s).reason).toContain("replicates alone cannot reach the target");
  });
});

test("the alloc counting quantum follows ptop's sampling period (native/ptop/src/collector/alloc.h), not a copy that can drift", () => {
  const header = readFileSync(resolve(import.meta.dir, "../../native/ptop/src/collector/alloc.h"), "utf8");
  const m = header.match(/#define PTOP_ALLOC_PERIOD \((\d+)u \* (\d+)u\)/);
  expect(m).not.toBeNull();
  expect(Number(m![1]) * Number(m![2])).toBe(ALLOC_SAMPLE_PERIOD);
  expect(countingQuantum("bytes", "alloc")).toBe(2 * ALLOC_SAMPLE_PERIOD);
});
