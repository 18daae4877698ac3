// The top table of one capture (or one side's merged captures) on one axis: every function's self
// and total (inclusive) cost, as a mean absolute value per capture and as a share of the axis.
// Rendered sorted by self; the page's script re-sorts by any column and filters by name.
import { functionTotals, type Capture } from "../../witness/index.ts";
import { html, type Html } from "./html.ts";
import { absolute, type AxisScale } from "./units.ts";

export interface TopRow {
  name: string;
  self: number;
  total: number;
  selfShare: number;
  totalShare: number;
}

const TOP_ROWS = 500;

export function topRows(axis: string, caps: Capture[]): TopRow[] {
  const index = new Map<string, number>();
  const names: string[] = [];
  const with_ = caps.filter((c) => c.axes[axis]);
  const totals = with_.map((c) => functionTotals(c.axes[axis]!, index, names));
  const n = Math.max(1, totals.length);
  const rows: TopRow[] = names.map((name, f) => {
    let self = 0;
    let total = 0;
    let selfShare = 0;
    let totalShare = 0;
    for (const t of totals) {
      const s = t.self[f] ?? 0;
      const i = t.inclusive[f] ?? 0;
      self += s;
      total += i;
      if (t.total > 0) {
        selfShare += s / t.total;
        totalShare += i / t.total;
      }
    }
    return { name, self: self / n, total: total / n, selfShare: selfShare / n, totalShare: totalShare / n };
  });
  return rows.sort((a, b) => b.self - a.self || b.total - a.total || a.name.localeCompare(b.name));
}

const pct = (x: number) => `${(x * 100).toFixed(2)}%`;

export function topTable(id: string, axis: string, rows: TopRow[], scale: AxisScale | null): Html {
  const shown = rows.slice(0, TOP_ROWS);
  const abs = (v: number) => (scale ? absolute(v, scale) : String(v));
  const body = shown.map(
    (r) => html`<tr data-name="${r.name.toLowerCase()}"><td class="fn"><button type="button" class="link sandwich-open" data-fn="${r.name}" data-axis="${axis}" aria-label="Sandwich view of ${r.name}">${r.name}</button></td>
<td data-v="${String(r.self)}">${pct(r.selfShare)} <span class="muted">${abs(r.self)}</span></td><td data-v="${String(r.total)}">${pct(r.totalShare)} <span class="muted">${abs(r.total)}</span></td></tr>`,
  );
  const sortBtn = (col: number, label: string, current: boolean) =>
    html`<th scope="col" aria-sort="${current ? "descending" : "none"}"><button type="button" class="sort" data-col="${String(col)}">${label}</button></th>`;
  return html`<div class="top" id="${id}"><div class="flame-tools"><label for="${id}-q">Find function</label><input type="search" id="${id}-q" class="top-search" aria-controls="${id}-t"><span class="top-count muted" aria-live="polite"></span></div>
<div class="scroll"><table class="top-table" id="${id}-t"><caption class="sr-only">Functions of the ${axis} axis by self cost; select a column header to sort</caption>
<thead><tr>${sortBtn(0, "Function", false)}${sortBtn(1, "Self", true)}${sortBtn(2, "Total", false)}</tr></thead><tbody>${body}</tbody></table></div>
${rows.length > TOP_ROWS ? html`<p class="muted">The ${TOP_ROWS} functions with the most self cost of ${rows.length} are listed; the folded download has every stack.</p>` : ""}</div>`;
}
