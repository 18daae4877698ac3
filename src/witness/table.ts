// The human-readable diff: verdict, then a ranked table (function, axis, change, interval, verdict).

import type { Change, DiffResult } from "./diff.ts";

/** A relative change as a signed percentage: 0.123 → "+12.3%", -0.04 → "-4.0%", and "0.0%" for anything that rounds to zero (never "-0.0%"). */
export const signedPercent = (x: number) => {
  const s = (x * 100).toFixed(1);
  return Number(s) === 0 ? "0.0%" : `${x > 0 ? "+" : ""}${s}%`;
};
const pct = signedPercent;

/** A count with its noun: count(1, "test", "tests") → "1 test". */
export const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function row(c: Change): string[] {
  const state = c.flagged ? (c.confirmation === "confirmed" ? "CHANGED (confirmed)" : "CHANGED (suspect)") : c.verdict;
  return [c.function, `${c.axis}/${c.kind === "self" ? "self" : "incl"}`, pct(c.relative_change), `[${pct(c.interval[0])}, ${pct(c.interval[1])}]`, `${(c.before.share * 100).toFixed(2)}% → ${(c.after.share * 100).toFixed(2)}%`, state];
}

export function renderDiffTable(r: DiffResult, limit = 30): string {
  const out: string[] = [];
  out.push(`verdict: ${r.verdict.toUpperCase()} — ${r.reason}`);
  out.push(`normalisation: ${r.normalisation} (${r.normalisations_reported.filter((n) => n !== r.normalisation).join(", ") || "none other"} reported in --json); Holm FWER ${r.q}; minimum effect ${Math.round(r.min_effect * 100)}%`);
  for (const a of r.axes_compared) {
    out.push(
      `axis ${a.axis}: ${a.captures.before} vs ${a.captures.after} captures, ${a.tested} tests (${a.distinct_tests} distinct), ` +
        `run-to-run CV ${(a.dispersion.run_to_run_cv * 100).toFixed(1)}% (${a.dispersion.source}), flagged ${a.flagged}` +
        (a.normalisation !== r.normalisation ? ` under ${a.normalisation} normalisation` : "") +
        Object.entries(a.flagged_by_normalisation)
          .filter(([n]) => n !== a.normalisation)
          .map(([n, k]) => `; under ${n} normalisation ${k}`)
          .join(""),
    );
  }
  for (const a of r.axes_not_compared) out.push(`axis ${a.axis}: NOT COMPARED — ${a.reason}`);
  for (const n of r.notes) out.push(`note: ${n}`);
  const shown = r.changes.filter((c) => c.flagged);
  for (const c of r.changes) {
    if (shown.length >= Math.max(limit, shown.length)) break;
    if (!c.flagged) shown.push(c);
  }
  if (shown.length) {
    const rows = [["function", "axis", "change", "95% interval", "share", "verdict"], ...shown.map(row)];
    const widths = rows[0]!.map((_, i) => Math.min(60, Math.max(...rows.map((x) => x[i]!.length))));
    out.push("");
    for (const x of rows) out.push(x.map((v, i) => (v.length > widths[i]! ? v.slice(0, widths[i]! - 1) + "…" : v.padEnd(widths[i]!))).join("  ").trimEnd());
    if (r.changes.length > shown.length) out.push(`… ${r.changes.length - shown.length} more in --json`);
  }
  return out.join("\n") + "\n";
}
