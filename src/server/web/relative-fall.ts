// A flagged fall (↓ improvement) that is relative only. The verdict compares each function's count
// relative to the rest (share of the axis, or the typical function under median-ratio): when one
// function grows, the others' shares fall although they do no less work, and the diff flags them
// as improvements — correct for shares, misleading to a reader. The diff also tests every
// function per second of measured time (its `rate` normalisation, reported beside the verdict's);
// where that comparison shows no flagged fall, the page says the fall is relative only. The
// statistics themselves are witness's and stay as they are.
import { signedPercent as pct, type AxisReport, type Change, type DiffResult, type NormalisedChange, type Normalisation } from "../../witness/index.ts";

/** What the verdict's comparison was relative to, told as why the count fell. */
const WHY: Record<Exclude<Normalisation, "rate">, string> = {
  share: "its share fell because the others grew",
  "median-ratio": "it fell relative to the typical function, which grew",
  cpu: "it fell per CPU-second because CPU time grew",
};

function axisOf(r: DiffResult, c: Change): AxisReport | undefined {
  return r.axes_compared.find((a) => a.axis === c.axis);
}

/** A flagged fall under a relative normalisation. */
function relativeDown(r: DiffResult, c: Change): boolean {
  const norm = axisOf(r, c)?.normalisation;
  return c.flagged && c.direction === "down" && norm !== undefined && norm !== "rate";
}

function perSecondWords(rate: NormalisedChange): string {
  const [lo, hi] = rate.interval;
  const numbers = `${pct(rate.relative_change)} [${pct(lo)}, ${pct(hi)}]`;
  if (lo <= 0 && hi >= 0) return `per second: unchanged within noise (${numbers})`;
  if (lo > 0) return `per second: it grew (${numbers})`;
  return `per second: ${numbers}, not a fall the diff can tell from noise`;
}

/** The row's note for a flagged fall that per second is no fall; null otherwise. */
export function relativeFallNote(r: DiffResult, c: Change): string | null {
  if (!relativeDown(r, c)) return null;
  const rate = c.normalisations.rate;
  if (!rate || (rate.flagged && rate.relative_change < 0)) return null;
  const why = WHY[axisOf(r, c)!.normalisation as Exclude<Normalisation, "rate">];
  return `Relative only: ${why}; ${perSecondWords(rate)}.`;
}

/**
 * Once, near the verdict: how many of the flagged falls are relative only. When the captures have
 * no measured time (folded input: no per-second comparison), the general explanation instead,
 * where a relative fall sits beside a flagged rise it may come from.
 */
export function relativeFallSummary(r: DiffResult): string | null {
  const downs = r.changes.filter((c) => relativeDown(r, c));
  if (downs.length === 0) return null;
  const noted = downs.filter((c) => relativeFallNote(r, c) !== null).length;
  if (noted > 0) {
    const of = noted === downs.length ? (noted === 1 ? "The flagged fall (↓)" : `All ${noted} flagged falls (↓)`) : `${noted} of the ${downs.length} flagged falls (↓)`;
    return `${of} ${noted === 1 ? "is" : "are"} relative only: when one function grows, the others' shares fall although they do no less work. Per second of measured time ${noted === 1 ? "it shows" : "they show"} no fall beyond noise; ${noted === 1 ? "its row says" : "their rows say"} so.`;
  }
  const unmeasured = downs.some((c) => !c.normalisations.rate);
  const rises = r.changes.some((c) => c.flagged && c.direction === "up" && downs.some((d) => d.axis === c.axis));
  if (unmeasured && rises)
    return "A flagged fall (↓) here may be relative only: costs are compared relative to the rest, so when one function grows the others' shares fall although they do no less work. These captures have no measured time, so the diff cannot tell per second.";
  return null;
}
