// Stage 6 of the diff: the one-word verdict and the sentence that justifies it.

import type { AxisReport, Change, DiffResult } from "../diff-result.ts";
import type { DiffSettings } from "./settings.ts";
import { count } from "../words.ts";

export interface Verdict {
  verdict: DiffResult["verdict"];
  reason: string;
  /** Captures per version that would decide, when insufficient for want of power. */
  needed: number | null;
  /** The weakest axis's power (the promise holds only as far as it does). */
  minPower: number;
}

/**
 * changed when anything is flagged; unchanged only when nothing is and every axis had the power
 * to flag a detectEffect change of a detectShare function; insufficient otherwise.
 */
export function overallVerdict(axesCompared: AxisReport[], changes: Change[], s: Pick<DiffSettings, "q" | "minEffect" | "detectEffect" | "detectShare" | "targetPower">): Verdict {
  const minPower = axesCompared.length ? Math.min(...axesCompared.map((a) => a.power)) : 0;
  const flagged = changes.filter((c) => c.flagged);
  const effect = `${Math.round(s.detectEffect * 100)}% change of a ${s.detectShare * 100}%-share function`;
  if (axesCompared.length === 0) return { verdict: "insufficient", reason: "no axis is present in both head captures", needed: null, minPower };
  if (flagged.length > 0) {
    // Counted as a reader counts: functions, not tests (a function's self and total cost are two
    // tests, and a function can change on several axes).
    const functions = new Set(flagged.map((c) => c.function)).size;
    const axes = [...new Set(flagged.map((c) => c.axis))];
    const reason = `${count(functions, "function", "functions")} changed on ${axes.join(", ")}: ${count(flagged.length, "self or total cost clears", "self or total costs clear")} the noise floor (weighted Holm, family-wise error ≤ ${s.q}) and ≥${Math.round(s.minEffect * 100)}%`;
    return { verdict: "changed", reason, needed: null, minPower };
  }
  if (minPower >= s.targetPower) return { verdict: "unchanged", reason: `nothing flagged, and a ${effect} would have been flagged with probability ${minPower.toFixed(2)}`, needed: null, minPower };
  const ns = axesCompared.map((a) => a.replicates_needed);
  const needed = ns.some((n) => n === null) ? null : Math.max(...(ns as number[]));
  const reason =
    `nothing flagged, but a ${effect} would be flagged with probability only ${minPower.toFixed(2)}` +
    (needed !== null ? `; ${needed} captures per version would decide` : "; more samples per capture are needed (replicates alone cannot reach the target)");
  return { verdict: "insufficient", reason, needed, minPower };
}
