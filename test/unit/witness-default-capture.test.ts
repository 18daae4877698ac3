// Issue 30's promises at the default capture: one busy thread, 60 s × 399 Hz ≈ 24,000 cpu samples,
// a head and 4 replicates per version (the default plan), every function at ~2% run-to-run CV
// (test/fixtures/profiles/service-shape.ts). Seeded trials, 20 per promise: each count is fixed for
// these seeds, and each fails if the design is broken (share normalisation flags the siblings, a
// leaf-based median-ratio flags them in an interpreter, uniform Holm misses the 5% function, no
// equivalence test never says `unchanged`). bench/witness-default-capture.ts runs more trials and
// the other designs (bench/RESULTS.md).
import { describe, expect, test } from "bun:test";
import { diffCaptures } from "../../src/witness/diff.ts";
import type { DiffResult } from "../../src/witness/diff-result.ts";
import { causes, fivePercentShare, improvementBesideRegression, interpreterSibling, sameVersion, sixShares, SIX_SHARES, type Trial } from "../fixtures/profiles/service-trials.ts";

const TRIALS = 20;
const run = (build: (t: number) => Trial) => Array.from({ length: TRIALS }, (_, t) => diffCaptures(build(t)));
const count = (rs: DiffResult[], ok: (r: DiffResult) => boolean) => rs.filter(ok).length;

describe(`witness at the default capture (${TRIALS} seeded trials each)`, () => {
  test("a 25%-share Python function +40%, every function's bytecode in four shared C leaves: it is the cause; a sibling is flagged in ≤ 1 of 20", () => {
    const rs = run(interpreterSibling);
    expect(count(rs, (r) => causes(r).includes("apply_discounts"))).toBe(TRIALS);
    expect(count(rs, (r) => causes(r).some((f) => f !== "apply_discounts"))).toBeLessThanOrEqual(1);
    // Its callers and the shared leaves moved with it: secondary, explained by it, never counted
    // (in the trials where it is the only cause; a wrongly flagged sibling explains them too).
    for (const r of rs.filter((x) => causes(x).join() === "apply_discounts")) {
      for (const c of r.changes.filter((x) => x.role === "secondary")) expect({ f: c.function, flagged: c.flagged, by: c.explained_by }).toEqual({ f: c.function, flagged: false, by: ["apply_discounts"] });
      expect(r.reason).toStartWith("1 function changed on cpu: apply_discounts +");
    }
    expect(count(rs, (r) => r.changes.some((c) => c.function === "_PyEval_EvalFrameDefault" && c.role === "secondary"))).toBeGreaterThan(TRIALS / 2);
  });

  test("+10% of a 5%-share function is flagged in ≥ 80% of trials", () => {
    const rs = run(fivePercentShare);
    expect(count(rs, (r) => causes(r).includes("target"))).toBeGreaterThanOrEqual(16);
  });

  test("A/A: `unchanged` in ≥ 80% of trials, `changed` in ≤ 5%; the promise is stated", () => {
    const rs = run(sameVersion);
    expect(count(rs, (r) => r.verdict === "unchanged")).toBeGreaterThanOrEqual(16);
    expect(count(rs, (r) => r.verdict === "changed")).toBeLessThanOrEqual(1);
    for (const r of rs.filter((x) => x.verdict === "unchanged")) {
      expect(r.reason).toMatch(/^nothing changed: no function above \d+(\.\d)?% of cpu changed by more than 10%/);
      expect(r.detect.share).toBeLessThanOrEqual(0.1);
    }
    for (const r of rs.filter((x) => x.verdict === "insufficient")) expect(r.reason).toMatch(/would decide$/);
  });

  test("a 15%-share function 20% faster beside a 25%-share one 40% slower: both found, as causes", () => {
    const rs = run(improvementBesideRegression);
    expect(count(rs, (r) => ["faster", "slower"].every((f) => causes(r).includes(f)))).toBe(TRIALS);
    for (const r of rs) {
      expect(r.changes.find((c) => c.function === "faster" && c.flagged)!.direction).toBe("down");
      expect(r.changes.find((c) => c.function === "slower" && c.flagged)!.direction).toBe("up");
    }
  });

  test(`the six measured shares of a real service (${SIX_SHARES.before.join(", ")} → ${SIX_SHARES.after.join(", ")}, ~3,600 samples each) beside 40 bursty neighbours at 30–40% CV: a confirmed change`, () => {
    const rs = run(sixShares);
    for (const r of rs) {
      const c = r.changes.find((x) => x.function === "apply_discounts" && x.kind === "self")!;
      expect({ verdict: r.verdict, flagged: c.flagged, role: c.role, confirmation: c.confirmation }).toEqual({ verdict: "changed", flagged: true, role: "cause", confirmation: "confirmed" });
      // Its interval is its own (steady) noise, not the bursty neighbours': well inside ±15%.
      expect(Math.log1p(c.interval[1]) - Math.log1p(c.interval[0])).toBeLessThan(0.3);
    }
  });
});
