// The colours and words of a change, one set for every view of a diff: the app's capture screen
// and comparison page (its browser script bundles this file), and the standalone diff.html witness writes. Okabe–Ito orange for a
// regression and blue for an improvement (told apart without red–green vision), light enough for
// dark text at WCAG AA; what did not clear the noise floor stays neutral, so sampling noise paints
// nothing.
import type { Change, DiffResult } from "./diff-result.ts";
import { signedPercent as pct } from "./words.ts";

export const NOT_TESTED = "#e6e6e6";
export const WITHIN_NOISE = "#d9d4c7";
export const ROOT_FRAME = "#c8c8c8";
/** The legend's swatches: a flagged change of about 30%. */
export const GREW = "hsl(28,95%,62%)";
export const SHRANK = "hsl(202,80%,62%)";

/** The legend every view prints, in this order: a class name, its colour, its words. */
export const LEGEND: ReadonlyArray<readonly [key: "up" | "down" | "noise" | "untested", colour: string, words: string]> = [
  ["up", GREW, "grew: regression (flagged)"],
  ["down", SHRANK, "shrank: improvement (flagged)"],
  ["noise", WITHIN_NOISE, "within noise"],
  ["untested", NOT_TESTED, "not tested"],
];

/** A frame's fill: stronger for bigger changes, saturating at ±50%. */
export function changeColour(relativeChange: number, flagged: boolean): string {
  if (!flagged) return WITHIN_NOISE;
  const k = Math.min(1, Math.abs(relativeChange) / 0.5);
  const light = Math.round(86 - 24 * k);
  return relativeChange >= 0 ? `hsl(28,95%,${light}%)` : `hsl(202,80%,${light}%)`;
}

/** A flagged change in words: growth of a cost is a regression, a fall an improvement. */
export const changeWord = (direction: "up" | "down"): string => (direction === "up" ? "↑ regression" : "↓ improvement");

/** up: some flagged change grew (a regression); down: only improvements; null: nothing flagged. */
export function direction(r: DiffResult): "up" | "down" | "mixed" | null {
  const f = r.changes.filter((c) => c.flagged);
  const up = f.some((c) => c.direction === "up");
  const down = f.some((c) => c.direction === "down");
  return up && down ? "mixed" : up ? "up" : down ? "down" : null;
}

/** The verdict as the badge says it: "changed ↑ regression", "unchanged", … */
export function verdictWords(r: DiffResult): string {
  const d = r.verdict === "changed" ? direction(r) : null;
  return d === "up" ? "changed ↑ regression" : d === "down" ? "changed ↓ improvement" : d === "mixed" ? "changed ↑↓ regression and improvement" : r.verdict;
}

/** An adjusted p as the tables print it. */
export const adjustedP = (p: number): string => (p < 0.001 ? "< 0.001" : p.toFixed(3));

/**
 * The change each frame of an axis is painted with: its function's total (inclusive) change, or
 * the self change when only that one cleared the noise floor (a leaf's cost), so a flagged
 * function is never painted as noise.
 */
export function frameChanges(changes: Change[], axis: string): Map<string, Change> {
  const out = new Map<string, Change>();
  for (const c of changes) {
    if (c.axis !== axis) continue;
    const have = out.get(c.function);
    if (!have || (c.flagged && !have.flagged) || (c.flagged === have.flagged && c.kind === "inclusive")) out.set(c.function, c);
  }
  return out;
}

/** What a frame's hover text says about a function's change (the fields of a `Change`, so the browser's flame data can say it too). */
export function changeSentence(c: Pick<Change, "relative_change" | "interval" | "flagged" | "kind" | "adjusted_p" | "noise_floor"> & { confirmation: string | null; verdict: string }): string {
  const verdict = c.flagged
    ? `CHANGED: ${c.relative_change >= 0 ? "regression" : "improvement"} (${c.confirmation ?? "suspect"})`
    : c.verdict === "secondary"
      ? "secondary: it moved with the causes it runs under or over, not counted"
      : c.verdict;
  return (
    `function ${c.kind === "inclusive" ? "total" : "self"} change ${pct(c.relative_change)}, 95% interval [${pct(c.interval[0])}, ${pct(c.interval[1])}] — ${verdict}\n` +
    `adjusted p ${adjustedP(c.adjusted_p)} · noise floor ±${(c.noise_floor * 100).toFixed(1)}%`
  );
}
