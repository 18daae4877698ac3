// Each tested change in words a reader understands: regression or improvement, how sure (the
// adjusted p against the family-wise bar), the noise floor, the power to see a change of the size
// the verdict promises, and for an undecided change how many captures per version would decide it.
// Every figure is witness's own (Change.power, Change.captures_needed): `witness diff --json` and
// the page cannot disagree.
import type { Change } from "../../witness/index.ts";

export interface ChangeWords {
  /** "regression" | "improvement" for a flagged change, else null. */
  kind: "regression" | "improvement" | null;
  /** null for a diff stored before witness computed each change's power. */
  power: number | null;
  /** Captures per version that would decide an `insufficient` change (null: not applicable or not computed; Infinity: more than 200). */
  needed: number | null;
  text: string;
  /** Why the interval and the verdict seem to disagree, when they do. */
  intervalNote: string | null;
}

const pc = (x: number) => `${(x * 100).toFixed(1)}%`;
const p = (x: number) => (x < 0.001 ? x.toExponential(1) : x.toFixed(3));

export function changeWords(c: Change, o: { q: number; minEffect: number; perSide: number; tests: number }): ChangeWords {
  const kind = c.flagged ? (c.direction === "up" ? "regression" : "improvement") : null;
  const bar = `adjusted p ${p(c.adjusted_p)} ${c.adjusted_p <= o.q ? "≤" : ">"} ${o.q}`;
  const floor = `changes smaller than ±${pc(c.noise_floor)} cannot be told from run-to-run noise here`;
  let needed: number | null = null;
  let text: string;
  if (c.flagged) {
    text = `${kind === "regression" ? "Regression" : "Improvement"}: ${c.direction === "up" ? "grew" : "shrank"} by ${pc(Math.abs(c.relative_change))} (${bar}); ${floor}.`;
  } else if (c.verdict === "unchanged") {
    text = `No change beyond ±${pc(o.minEffect)}: the whole 95% interval lies inside it; ${floor}.`;
  } else {
    // A diff stored before witness computed captures_needed has no such field: no number is said.
    needed = c.captures_needed === undefined ? null : (c.captures_needed ?? Infinity);
    const more = needed === null ? "more captures per version" : needed === Infinity ? "more than 200 captures per version" : `about ${needed} captures per version (${needed - o.perSide} more on each side)`;
    text =
      Math.abs(c.relative_change) >= o.minEffect
        ? `Undecided: it moved ${pc(c.relative_change)} but ${bar}, so it may be noise; ${more} would decide whether it is real. ${floor[0]!.toUpperCase()}${floor.slice(1)}.`
        : `Undecided: too noisy to promise it stayed within ±${pc(o.minEffect)}; ${more} would decide.`;
  }
  const excludesZero = c.interval[0] > 0 || c.interval[1] < 0;
  const intervalNote =
    !c.flagged && excludesZero
      ? `Its 95% interval excludes no change, but that interval is for this function alone; with ${o.tests} tests some such intervals are flukes, so the verdict uses the adjusted p (${p(c.adjusted_p)}), which is above ${o.q}.`
      : c.flagged && !excludesZero
        ? "Flagged although its 95% interval includes no change: the interval here comes from the reported normalisation, the test from the verdict's."
        : null;
  return { kind, power: c.power ?? null, needed, text, intervalNote };
}
