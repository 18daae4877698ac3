import type { ConnectorHealth } from "./health.ts";

// `runner agent health` for a person: one row per connector with what is missing and what to
// do. Errors first (they need action), then ok rows that note missing optional permissions,
// then skipped ones. The fix column falls back to the detail when a connector gives no fix.

const ORDER: Record<ConnectorHealth["status"], number> = { error: 0, ok: 1, skipped: 2 };
const HEAD = ["CONNECTOR", "STATUS", "MISSING PERMISSION", "FIX / DETAIL"] as const;

export function healthTable(rows: ConnectorHealth[]): string {
  const sorted = [...rows].sort((a, b) => ORDER[a.status] - ORDER[b.status] || a.connector.localeCompare(b.connector));
  const cells = sorted.map((r) => [r.connector, r.status, r.missing?.length ? r.missing.join(", ") : "-", fixOf(r)]);
  const widths = [0, 1, 2].map((i) => Math.max(HEAD[i]!.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) => `${c.slice(0, 3).map((v, i) => v.padEnd(widths[i]!)).join("  ")}  ${c[3]}`.trimEnd();
  const count = (status: ConnectorHealth["status"]) => rows.filter((r) => r.status === status).length;
  const summary = `${rows.length} connectors: ${count("ok")} ok, ${count("error")} need action, ${count("skipped")} not configured`;
  return [line(HEAD), ...cells.map(line), "", summary].join("\n") + "\n";
}

function fixOf(r: ConnectorHealth): string {
  if (r.fix && r.fix !== r.detail) return `${r.fix} (${r.detail})`;
  return r.detail;
}
