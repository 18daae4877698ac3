// Stage 4 of the diff: weighted Holm over every distinct test of every axis, the weights spending
// q where the verdict's promise lies (stats/weights.ts). Two families, so inclusive aggregates (a
// regression moves its own self count *and* the inclusive count of every ancestor: ~20 tests
// saying one thing) do not take the budget of the places where cost lives. The vectors where a
// function's own cost lives form one family ("self": native self counts, and the inclusive counts
// of interpreted functions — a Python function is never a leaf, its bytecode runs in the
// interpreter's C functions beneath it, so its inclusive count is its own cost); every other
// inclusive aggregate the other. Bonferroni across them: FWER ≤ q_self + q_inclusive = q.

import { holmAdjust } from "../stats/multiple-testing.ts";
import { detectabilityWeights, FOCUS_MARGIN } from "../stats/weights.ts";
import type { TestSet } from "./axis-matrix.ts";
import type { NormalisationFit } from "./normalisation-fit.ts";
import type { DiffSettings } from "./settings.ts";

export type Family = "self" | "inclusive";

/** The share of q each family may spend. */
export function familyLevels(q: number): Record<Family, number> {
  return { self: q * 0.9, inclusive: q * 0.1 };
}

/** A count vector the verdict's promise covers: its pooled share is near the detect share or above. */
export function isFocus(y: Float64Array, sumT: number, detectShare: number): boolean {
  return y.reduce((a, b) => a + b, 0) / sumT >= FOCUS_MARGIN * detectShare;
}

export interface HolmOutcome {
  flagged: boolean[];
  /** On the overall q scale: flagged ⇔ adjusted ≤ q (and the minimum effect). */
  adjusted: number[];
  /** The first-step level of each test (its bar when it is the only discovery). */
  level: number[];
}

interface Entry<W> {
  axis: W;
  i: number;
  p: number;
  logRatio: number;
  detectability: number;
  focus: boolean;
}

/** One Holm run per family over the tests `pick` chooses on each axis (one normalisation each). */
export function weightedHolmByFamily<W extends { tests: TestSet }>(
  axes: W[],
  pick: (w: W) => NormalisationFit | undefined,
  s: Pick<DiffSettings, "q" | "minEffect" | "detectEffect" | "detectShare" | "weighting">,
  focusShare: (w: W) => number = () => s.detectShare,
): { byAxis: Map<W, HolmOutcome>; sizes: Record<Family, number> } {
  // Every fitted axis has an outcome, empty when it has no test (one function, too few samples),
  // so that callers can read it without asking.
  const byAxis = new Map<W, HolmOutcome>(axes.filter((w) => pick(w)).map((w) => [w, { flagged: [], adjusted: [], level: [] }]));
  const sizes = { self: 0, inclusive: 0 };
  const delta = Math.log(1 + s.detectEffect);
  const levels = familyLevels(s.q);
  for (const fam of ["self", "inclusive"] as const) {
    const entries: Entry<W>[] = [];
    for (const w of axes) {
      const fit = pick(w);
      if (!fit) continue;
      fit.tests.forEach((t, i) => {
        if (w.tests.ownKeys.has(i) !== (fam === "self")) return;
        entries.push({ axis: w, i, p: t.r.p, logRatio: t.r.logRatio, detectability: delta / t.r.seNull, focus: isFocus(w.tests.distinct[i]!, w.tests.sumT, focusShare(w)) });
      });
    }
    sizes[fam] = entries.length;
    const qf = levels[fam];
    const weights =
      s.weighting === "uniform"
        ? entries.map(() => 1)
        : detectabilityWeights(
            entries.map((e) => e.detectability),
            entries.map((e) => e.focus),
            qf,
          );
    const adj = holmAdjust(
      entries.map((e) => e.p),
      weights,
    );
    entries.forEach((e, k) => {
      const a = byAxis.get(e.axis)!;
      a.flagged[e.i] = adj[k]! <= qf && Math.abs(Math.expm1(e.logRatio)) >= s.minEffect;
      a.adjusted[e.i] = Math.min(1, (adj[k]! * s.q) / qf);
      a.level[e.i] = (weights[k]! * qf) / entries.length;
    });
  }
  return { byAxis, sizes };
}
