// Stage 6 of the diff: the one-word verdict and the sentence that justifies it, causes first.
//
//   changed       some function's own work changed (a cause; secondary changes are not counted);
//   unchanged     nothing changed, and the equivalence test behind the promise passed: no function
//                 above S of the axis changed by more than E (a change of E at S would have been
//                 flagged with probability ≥ 0.8);
//   insufficient  nothing flagged, but the captures cannot promise that (or some intervals are too
//                 wide): the sentence says which capture would decide.

import type { AxisReport, Change, DiffResult } from "../diff-result.ts";
import type { DiffSettings } from "./settings.ts";
import { count, signedPercent as pct } from "../words.ts";

export interface Verdict {
  verdict: DiffResult["verdict"];
  reason: string;
  /** Captures per version that would decide, when insufficient. */
  needed: number | null;
  /** The promise's power (the weakest promised axis's), and its share (null: no useful promise). */
  minPower: number;
  promiseShare: number | null;
}

const share = (x: number) => `${+(x * 100).toFixed(1)}%`;

/** "apply_discounts +91.8% [+47.0%, +150.2%]": a cause by its strongest test. */
function causeWords(changes: Change[], fn: string): string {
  const c = changes.find((x) => x.function === fn && x.flagged)!;
  return `${fn} ${pct(c.relative_change)} [${pct(c.interval[0])}, ${pct(c.interval[1])}]`;
}

function changedReason(changes: Change[], s: Pick<DiffSettings, "q" | "minEffect">): string {
  const flagged = changes.filter((c) => c.flagged);
  // Counted as a reader counts: functions, not tests (a function's self and total cost are two
  // tests, and a function can change on several axes).
  const causes = [...new Set(flagged.map((c) => c.function))];
  const axes = [...new Set(flagged.map((c) => c.axis))];
  const secondary = new Set(changes.filter((c) => c.role === "secondary").map((c) => c.function)).size;
  const shown = causes.slice(0, 5).map((f) => causeWords(changes, f));
  return (
    `${count(causes.length, "function", "functions")} changed on ${axes.join(", ")}: ${shown.join("; ")}${causes.length > shown.length ? `; ${causes.length - shown.length} more` : ""}` +
    ` (noise floor cleared: weighted Holm, family-wise error ≤ ${s.q}, ≥${Math.round(s.minEffect * 100)}%)` +
    (secondary ? `; ${count(secondary, "caller or shared function moved with them", "callers or shared functions moved with them")} (secondary, not counted)` : "")
  );
}

/** The promise an axis made, in words. */
const promised = (a: AxisReport, effect: number) => `no function above ${share(a.promise.share!)} of ${a.axis} changed by more than ${Math.round(effect * 100)}%`;

export function overallVerdict(
  axes: AxisReport[],
  changes: Change[],
  s: Pick<DiffSettings, "q" | "minEffect" | "detectEffect">,
  remedy: DiffResult["remedy"],
): Verdict {
  const withPromise = axes.filter((a) => a.promise.share !== null);
  const weakest = withPromise.reduce<AxisReport | null>((w, a) => (!w || a.promise.share! > w.promise.share! ? a : w), null);
  const base = { needed: null, minPower: weakest?.promise.power ?? Math.max(0, ...axes.map((a) => a.promise.power)), promiseShare: weakest?.promise.share ?? null };
  if (axes.length === 0) return { ...base, verdict: "insufficient", reason: "no axis is present in both head captures" };
  if (changes.some((c) => c.flagged)) return { ...base, verdict: "changed", reason: changedReason(changes, s) };
  const effect = `${Math.round(s.detectEffect * 100)}%`;
  const without = axes.filter((a) => a.promise.share === null).map((a) => a.axis);
  const wide = withPromise.filter((a) => !a.promise.equivalent);
  // cpu is where a version's cost is first looked for: without a promise there, a promise on a
  // quieter axis (offcpu, syscalls) is no `unchanged`.
  const cpuUnpromised = axes.some((a) => a.axis === "cpu" && a.promise.share === null);
  if (withPromise.length > 0 && wide.length === 0 && !cpuUnpromised) {
    const promise = withPromise.map((a) => `${promised(a, s.detectEffect)} (a ${effect} change there is flagged with probability ${a.promise.power.toFixed(2)})`).join("; ");
    return { ...base, verdict: "unchanged", reason: `nothing changed: ${promise}${without.length ? `; ${without.join(", ")}: too few samples to promise anything` : ""}` };
  }
  const decide = remedyWords(remedy);
  const why = wide.length
    ? `nothing flagged, but ${wide.map((a) => `on ${a.axis} ${a.promise.wide.slice(0, 3).join(", ")}${a.promise.wide.length > 3 ? " …" : ""} could have changed by more than ${effect} (interval too wide)`).join("; ")}`
    : `nothing flagged, but these captures cannot promise that a ${effect} change of even a ${share(remedy?.share ?? 0.1)}-share function would be seen (probability ${base.minPower.toFixed(2)}); this is not a "no change"`;
  return { ...base, verdict: "insufficient", reason: `${why}; ${decide}`, needed: remedy?.captures ?? null };
}

/** Which capture would decide, in words. */
function remedyWords(r: DiffResult["remedy"]): string {
  if (!r) return "more captures per version would decide";
  const ways: string[] = [];
  if (r.captures !== null) ways.push(`${r.captures} captures per version`);
  if (r.samples_times !== null) ways.push(`captures with ${r.samples_times}× the samples (${r.duration_sec !== null ? `${r.duration_sec} s each, or ` : ""}${r.samples_times}× the frequency)`);
  return ways.length ? `${ways.join(", or ")} would decide` : "more than 200 captures per version would be needed";
}
