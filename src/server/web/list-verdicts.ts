// The Profiling list's verdict column: for each pushed head its stored diff's verdict, with the
// direction of a change (regressions ↑, improvements ↓), "no baseline" when there was nothing to
// compare with. The verdicts come from one query without the diffs' JSON; a changed diff's JSON is
// read and parsed once per process for its direction (a stored diff is immutable for its
// createdAt), so the list and its 2-second live refresh do not re-read every diff.
import type { DiffResult } from "../../witness/index.ts";
import type { Store } from "../store/store.ts";
import type { CaptureRecord } from "../store/types.ts";
import { html, type Html } from "./html.ts";

export type ListVerdict = "up" | "down" | "mixed" | "unchanged" | "insufficient" | "no-baseline" | "pending";

export interface RowVerdict {
  verdict: ListVerdict;
  up: number;
  down: number;
}

const cache = new Map<string, RowVerdict>();
const CACHE_MAX = 5000;

/** Functions flagged up and down — causes only (witness does not flag a secondary change) —
 *  counted as a reader counts them: a function whose self and total cost (or several axes) are
 *  flagged the same way is one function. */
export function summarise(json: string): RowVerdict {
  const r = JSON.parse(json) as DiffResult;
  const up = new Set<string>();
  const down = new Set<string>();
  for (const c of r.changes) if (c.flagged) (c.direction === "up" ? up : down).add(c.function);
  const verdict: ListVerdict = r.verdict === "changed" ? (up.size && down.size ? "mixed" : up.size ? "up" : "down") : r.verdict;
  return { verdict, up: up.size, down: down.size };
}

export async function rowVerdicts(store: Store, records: CaptureRecord[]): Promise<Map<string, RowVerdict>> {
  const heads = records.filter((r) => r.kind === "head" && r.outcome === "pushed");
  const out = new Map<string, RowVerdict>();
  // One query for the verdicts (no JSON); a changed diff's JSON only when its direction is not cached.
  const summaries = new Map((await store.listDiffSummaries(heads.map((r) => r.requestId))).map((d) => [d.requestId, d]));
  await Promise.all(
    heads.map(async (r) => {
      const d = summaries.get(r.requestId);
      if (!d) return out.set(r.requestId, { verdict: "pending", up: 0, down: 0 });
      if (!d.verdict || !d.comparedWith) return out.set(r.requestId, { verdict: "no-baseline", up: 0, down: 0 });
      if (d.verdict !== "changed") return out.set(r.requestId, { verdict: d.verdict as ListVerdict, up: 0, down: 0 });
      const key = `${r.requestId}.${d.createdAt}`;
      let v = cache.get(key);
      if (!v) {
        const full = await store.getDiff(r.requestId);
        if (!full?.json) return out.set(r.requestId, { verdict: "no-baseline", up: 0, down: 0 });
        v = summarise(full.json);
        if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
        cache.set(key, v);
      }
      out.set(r.requestId, v);
    }),
  );
  return out;
}

const WORDS: Record<ListVerdict, string> = {
  up: "changed ↑ regression",
  down: "changed ↓ improvement",
  mixed: "changed ↑↓",
  unchanged: "unchanged",
  insufficient: "insufficient",
  "no-baseline": "no baseline",
  pending: "diff pending",
};

/** The changed functions counted each way, as the badge shows them: " (1↑)", " (2↑ 1↓)", or "". */
const badgeCounts = (v: RowVerdict) => (v.up || v.down ? ` (${[v.up ? `${v.up}↑` : "", v.down ? `${v.down}↓` : ""].filter(Boolean).join(" ")})` : "");

/** The list's badge as text: "changed ↑ regression (1↑)" (the demo prints it). */
export const badgeText = (v: RowVerdict): string => `${WORDS[v.verdict]}${badgeCounts(v)}`;

export function verdictCell(v: RowVerdict | undefined): Html {
  if (!v) return html`<td class="muted">—</td>`;
  const cls = v.verdict === "up" || v.verdict === "down" ? v.verdict : v.verdict === "mixed" ? "up" : v.verdict;
  const counts = badgeCounts(v);
  const title = `functions flagged: ${v.up} up, ${v.down} down`;
  return html`<td data-verdict="${v.verdict}"><span class="vchg ${cls}">${WORDS[v.verdict]}</span>${counts ? html`<span class="muted" title="${title}">${counts}</span>` : ""}</td>`;
}

/** The verdict filter's values, as the select offers them. */
export const VERDICT_FILTERS: Array<[string, string]> = [
  ["changed", "changed (↑ or ↓)"],
  ["up", "regressions ↑"],
  ["down", "improvements ↓"],
  ["unchanged", "unchanged"],
  ["insufficient", "insufficient"],
  ["no-baseline", "no baseline"],
];

export function matchesVerdict(filter: string, v: RowVerdict | undefined): boolean {
  if (!v) return false;
  if (filter === "changed") return v.verdict === "up" || v.verdict === "down" || v.verdict === "mixed";
  if (filter === "up" || filter === "down") return v.verdict === filter || v.verdict === "mixed";
  return v.verdict === filter;
}
