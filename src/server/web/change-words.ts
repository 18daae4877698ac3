// Each tested change in words a reader understands: regression or improvement, how sure (the
// adjusted p against the family-wise bar), the noise floor, the power to see a change of the size
// the verdict promises, and for an undecided change about how many captures per version would
// decide it. The adjusted p and noise floor are witness's own; power and "captures needed" are
// read back from the change's interval and noise floor assuming its standard error shrinks with
// the square root of the captures per side (run-to-run noise dominating), and are said to be
// estimates on the page.
import { normalCdf } from "../../witness/stats/distributions.ts";
import type { Change } from "../../witness/diff.ts";

const Z95 = 1.959964;
const Z80 = 0.841621;

export interface ChangeWords {
  /** "regression" | "improvement" for a flagged change, else null. */
  kind: "regression" | "improvement" | null;
  power: number;
  /** Captures per version that would decide an `insufficient` change (null: not applicable; Infinity: more than 200). */
  needed: number | null;
  text: string;
  /** Why the interval and the verdict seem to disagree, when they do. */
  intervalNote: string | null;
}

const pc = (x: number) => `${(x * 100).toFixed(1)}%`;
const p = (x: number) => (x < 0.001 ? x.toExponential(1) : x.toFixed(3));

export function changeWords(c: Change, o: { q: number; minEffect: number; detectEffect: number; perSide: number; tests: number }): ChangeWords {
  const lo = Math.log1p(Math.max(-0.999999, c.interval[0]));
  const hi = Math.log1p(c.interval[1]);
  const se = Math.max(1e-9, (hi - lo) / (2 * Z95));
  const thr = Math.log1p(c.noise_floor);
  const power = normalCdf((Math.log1p(o.detectEffect) - thr) / se);
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
    const obs = Math.abs(Math.log1p(c.relative_change));
    const minE = Math.log1p(o.minEffect);
    // Captures per side at which the observed change, if real, is flagged with 80% chance; or,
    // when it is below the minimum effect, at which its interval fits inside ±minimum effect.
    const ratio = obs >= minE ? (thr + Z80 * se) / obs : (Z95 * se) / Math.max(1e-9, minE - obs);
    const n = Math.ceil(o.perSide * ratio * ratio);
    needed = n > 200 ? Infinity : Math.max(o.perSide + 1, n);
    const more = needed === Infinity ? "more than 200 captures per version" : `about ${needed} captures per version (${needed - o.perSide} more on each side)`;
    text =
      obs >= minE
        ? `Undecided: it moved ${pc(c.relative_change)} but ${bar}, so it may be noise; ${more} would decide whether it is real (estimate). ${floor[0]!.toUpperCase()}${floor.slice(1)}.`
        : `Undecided: too noisy to promise it stayed within ±${pc(o.minEffect)}; ${more} would decide (estimate).`;
  }
  const excludesZero = c.interval[0] > 0 || c.interval[1] < 0;
  const intervalNote =
    !c.flagged && excludesZero
      ? `Its 95% interval excludes no change, but that interval is for this function alone; with ${o.tests} tests some such intervals are flukes, so the verdict uses the adjusted p (${p(c.adjusted_p)}), which is above ${o.q}.`
      : c.flagged && !excludesZero
        ? "Flagged although its 95% interval includes no change: the interval here comes from the reported normalisation, the test from the verdict's."
        : null;
  return { kind, power, needed, text, intervalNote };
}
