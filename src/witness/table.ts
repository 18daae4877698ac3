// The human-readable diff: the verdict and its causes first, then a ranked table (function, axis,
// change, interval, verdict) — causes, then secondary changes (with what explains them), then the rest.

import type { Change, DiffResult } from "./diff-result.ts";
import { signedPercent as pct } from "./words.ts";

function state(c: Change): string {
  if (c.flagged) return c.confirmation === "confirmed" ? "CHANGED (confirmed)" : "CHANGED (suspect)";
  if (c.role === "secondary") return `secondary (${c.explained_by.join(", ") || "a cause"})`;
  return c.verdict;
}

/** The causes, one line each, as a reader scans them first. */
function causeLines(r: DiffResult): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const c of r.changes) {
    if (!c.flagged || seen.has(`${c.function}\u0000${c.axis}`)) continue;
    seen.add(`${c.function}\u0000${c.axis}`);
    out.push(`cause: ${c.function} (${c.axis}) ${pct(c.relative_change)} [${pct(c.interval[0])}, ${pct(c.interval[1])}] ${c.direction === "up" ? "regression" : "improvement"}, ${c.confirmation}`);
  }
  return out;
}

function row(c: Change): string[] {
  return [c.function, `${c.axis}/${c.kind === "self" ? "self" : "incl"}`, pct(c.relative_change), `[${pct(c.interval[0])}, ${pct(c.interval[1])}]`, `${(c.before.share * 100).toFixed(2)}% → ${(c.after.share * 100).toFixed(2)}%`, state(c)];
}

export function renderDiffTable(r: DiffResult, limit = 30): string {
  const out: string[] = [];
  out.push(`verdict: ${r.verdict.toUpperCase()} — ${r.reason}`);
  out.push(...causeLines(r));
  out.push(`normalisation: ${r.normalisation} (${r.normalisations_reported.filter((n) => n !== r.normalisation).join(", ") || "none other"} reported in --json); Holm FWER ${r.q}; minimum effect ${Math.round(r.min_effect * 100)}%`);
  for (const a of r.axes_compared) {
    out.push(
      `axis ${a.axis}: ${a.captures.before} vs ${a.captures.after} captures, ${a.tested} tests (${a.distinct_tests} distinct), ` +
        `run-to-run CV ${(a.dispersion.run_to_run_cv * 100).toFixed(1)}% (${a.dispersion.source}), flagged ${a.flagged}${a.secondary ? ` (+${a.secondary} secondary)` : ""}` +
        (a.normalisation !== r.normalisation ? ` under ${a.normalisation} normalisation` : "") +
        Object.entries(a.flagged_by_normalisation)
          .filter(([n]) => n !== a.normalisation)
          .map(([n, k]) => `; under ${n} normalisation ${k}`)
          .join(""),
    );
  }
  for (const a of r.axes_not_compared) out.push(`axis ${a.axis}: NOT COMPARED — ${a.reason}`);
  for (const n of r.notes) out.push(`note: ${n}`);
  const shown = r.changes.filter((c) => c.role);
  for (const c of r.changes) {
    if (shown.length >= Math.max(limit, shown.length)) break;
    if (!c.role) shown.push(c);
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
