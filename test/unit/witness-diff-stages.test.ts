// Each stage of `diffCaptures` on its own (src/witness/diff/): the matrices, the hypotheses, the
// normalisation fits, weighted Holm per family, the changes with their confirmation, the verdict.
import { describe, expect, test } from "bun:test";
import type { AxisProfile, Capture } from "../../src/witness/model.ts";
import { ALLOC_SAMPLE_PERIOD, axesOf, buildAxisMatrix, countingQuantum, selectHypotheses, type AxisMatrix } from "../../src/witness/diff/axis-matrix.ts";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { chooseNormalisation, fitNormalisation, sizeFactors } from "../../src/witness/diff/normalisation-fit.ts";
import { familyLevels, isFocus, weightedHolmByFamily } from "../../src/witness/diff/holm-families.ts";
import { changeVerdict, confirmation, sideSummary, axisChanges, type AxisWork } from "../../src/witness/diff/changes.ts";
import { assignRoles } from "../../src/witness/diff/causes.ts";
import { promiseOf } from "../../src/witness/diff/promise.ts";
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
    expect(s).toEqual({ normalisation: "median-ratio", q: 0.05, minEffect: 0.05, minShare: 0.001, minCount: 5, priorDispersion: 0.01, detectEffect: 0.1, detectShare: 0.01, targetPower: 0.8, weighting: "promise" });
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
  test("a capture ptop's budget thinned (summary.sample_weight): its counts in units of the weight, its values unchanged", () => {
    const thinned = capture("a0", { cpu: axis({ f: 600, g: 400 }) });
    thinned.meta.sampleWeight = { cpu: 10 };
    const m = matrixOf([capture("b0", { cpu: axis({ f: 60, g: 40 }) })], [thinned]);
    expect(m.quanta).toEqual([1, 10]);
    // The Poisson term sees the 100 samples taken, not 1,000 weighted ones...
    expect(m.totals).toEqual([100, 100]);
    expect([...m.self[1]!]).toEqual([60, 60]);
    // ...and what is reported stays in the stream's values.
    expect(sideSummary(m, m.self[1]!, m.cols.after).value).toBe(600);
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
    // main owns the samples of the unknown code it called (a placeholder owns nothing).
    expect(tested).toEqual(["main/self", "main/inclusive", "f/self", "f/inclusive", "g/self", "g/inclusive"]);
    expect(t.distinct.length).toBe(4); // a leaf's self = inclusive
    expect(t.untested).toBe(1); // rare
    expect(t.ownKeys.size).toBe(3);
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

  test("share always; median-ratio with ≥5 call paths in every capture; rate only with every measured time", () => {
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
    expect(familyLevels(0.05).self).toBeCloseTo(0.045, 12);
    expect(familyLevels(0.05).inclusive).toBeCloseTo(0.005, 12);
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
    for (const weighting of ["promise", "detectability", "uniform"] as const) {
      const run = weightedHolmByFamily([w], (x) => x.fit, { ...s, weighting });
      expect(run.sizes.self + run.sizes.inclusive).toBe(tests.distinct.length);
      expect(run.sizes.self).toBe(tests.ownKeys.size);
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
  test("a change's own verdict: changed for a cause, secondary, unchanged inside ±min effect, else insufficient", () => {
    expect(changeVerdict("cause", 0.3, 0.6, 0.05)).toBe("changed");
    expect(changeVerdict("secondary", 0.1, 0.2, 0.05)).toBe("secondary");
    expect(changeVerdict(null, -0.02, 0.03, 0.05)).toBe("unchanged");
    expect(changeVerdict(null, -0.02, 0.2, 0.05)).toBe("insufficient");
  });
  test("changes, their roles, confirmation by a later replicate, each change's own power", () => {
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
    const roles = assignRoles(m, tests, fit, run.byAxis.get(w)!, s.minEffect);
    const changes = axisChanges(w, run.byAxis.get(w)!, new Map([["median-ratio", run.byAxis]]), roles, s);
    expect(changes.length).toBe(tests.hyps.length);
    const top = changes.find((c) => c.function === "target" && c.kind === "self")!;
    expect(top).toMatchObject({ flagged: true, role: "cause", verdict: "changed", direction: "up", confirmation: "confirmed" });
    // Whatever moved with it (its callers) is secondary, explained by it, and not counted.
    expect(new Set(changes.filter((c) => c.flagged).map((c) => c.function))).toEqual(new Set(["target"]));
    for (const c of changes.filter((c) => c.role === "secondary")) expect({ f: c.function, flagged: c.flagged, by: c.explained_by }).toEqual({ f: c.function, flagged: false, by: ["target"] });
    expect(top.interval[0]).toBeLessThan(0.5);
    expect(top.interval[1]).toBeGreaterThan(0.5);
    expect(report.flagged).toBe(changes.filter((c) => c.flagged).length);
    expect(report.flagged_by_normalisation["median-ratio"]).toBe(report.flagged);
    expect(top.power).toBeGreaterThan(0.9);
    const promise = promiseOf(w as AxisWork, [w as AxisWork], s);
    expect(promise.share).not.toBeNull();
    expect(promise.power).toBeGreaterThanOrEqual(s.targetPower);
  });
});

describe("stage 6: verdict", () => {
  const ax = (share: number | null, equivalent = true, wide: string[] = []) => ({ axis: "cpu", power: 0.85, promise: { share, power: 0.85, equivalent, wide } }) as unknown as AxisReport;
  const cause = (f: string, axis = "cpu", kind = "self") => ({ function: f, axis, kind, flagged: true, role: "cause", relative_change: 0.3, interval: [0.2, 0.4] }) as unknown as Change;
  test("no axis compared is insufficient", () => {
    expect(overallVerdict([], [], s, null)).toMatchObject({ verdict: "insufficient", reason: "no axis is present in both head captures" });
  });
  test("a cause is changed, named first with its change and interval", () => {
    const v = overallVerdict([ax(null)], [cause("apply_discounts")], s, null);
    expect(v.verdict).toBe("changed");
    expect(v.reason).toStartWith("1 function changed on cpu: apply_discounts +30.0% [+20.0%, +40.0%]");
  });
  test("the reason counts causes as a reader does — functions, not tests — and leaves secondary changes out of the count", () => {
    const changes = [cause("parse"), cause("parse", "cpu", "inclusive"), cause("parse", "offcpu", "inclusive"), { function: "main", axis: "cpu", kind: "inclusive", flagged: false, role: "secondary" }, { function: "render", axis: "cpu", kind: "self", flagged: false, role: null }] as Change[];
    const v = overallVerdict([ax(0.05)], changes, s, null);
    expect(v.reason).toStartWith("1 function changed on cpu, offcpu: parse +30.0%");
    expect(v.reason).toContain("1 caller or shared function moved with them (secondary, not counted)");
    expect(overallVerdict([ax(0.05)], [cause("a"), cause("b")], s, null).reason).toStartWith("2 functions changed on cpu: a +30.0% [+20.0%, +40.0%]; b +30.0%");
  });
  test("nothing flagged and the equivalence test passed at the promise: unchanged, stating the promise", () => {
    const v = overallVerdict([ax(0.03)], [], s, null);
    expect(v).toMatchObject({ verdict: "unchanged", promiseShare: 0.03 });
    expect(v.reason).toBe("nothing changed: no function above 3% of cpu changed by more than 10% (a 10% change there is flagged with probability 0.85)");
  });
  test("no promise, or intervals too wide: insufficient, naming the capture that would decide", () => {
    const none = overallVerdict([ax(null)], [], s, { share: 0.1, captures: 6, samples_times: 2, duration_sec: 120 });
    expect(none).toMatchObject({ verdict: "insufficient", needed: 6 });
    expect(none.reason).toContain("6 captures per version, or captures with 2× the samples (120 s each, or 2× the frequency) would decide");
    // A promise on offcpu alone is no `unchanged` while cpu can promise nothing.
    const offcpu = { ...ax(0.03), axis: "offcpu" } as AxisReport;
    expect(overallVerdict([ax(null), offcpu], [], s, { share: 0.1, captures: 6, samples_times: null, duration_sec: null }).verdict).toBe("insufficient");
    expect(overallVerdict([ax(0.03), { ...ax(null), axis: "syscalls" } as AxisReport], [], s, null).reason).toEndWith("; syscalls: too few samples to promise anything");
    const wide = overallVerdict([ax(0.05, false, ["step_2"])], [], s, { share: 0.05, captures: 5, samples_times: null, duration_sec: null });
    expect(wide.reason).toStartWith("nothing flagged, but on cpu step_2 could have changed by more than 10% (interval too wide); 5 captures per version would decide");
  });
});

test("the alloc counting quantum follows ptop's sampling period (native/ptop/src/collector/probes/alloc.h), not a copy that can drift", () => {
  const header = readFileSync(resolve(import.meta.dir, "../../native/ptop/src/collector/probes/alloc.h"), "utf8");
  const m = header.match(/#define PTOP_ALLOC_PERIOD \((\d+)u \* (\d+)u\)/);
  expect(m).not.toBeNull();
  expect(Number(m![1]) * Number(m![2])).toBe(ALLOC_SAMPLE_PERIOD);
  expect(countingQuantum("bytes", "alloc")).toBe(2 * ALLOC_SAMPLE_PERIOD);
});
