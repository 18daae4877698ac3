// One capture (or one side) on its own: per axis a flame graph and a top table (self, total,
// sortable, searchable; a function opens its sandwich: callers above, callees below).
import type { FlameAxis } from "../flame-data.ts";
import { flameFigure } from "../flame-figure.ts";
import { html, type Html } from "../html.ts";
import { topTable, type TopRow } from "../top-table.ts";
import { absolute } from "../units.ts";

/** `unsampled`: axes declared but without a sample, listed rather than drawn as empty boxes. */
export function aloneSection(title: string, id: string, items: Array<{ flame: FlameAxis; top: TopRow[] }>, unsampled: string[] = []): Html {
  if (items.length === 0 && unsampled.length === 0) return html``;
  const empty = unsampled.length
    ? html`<ul class="absent" aria-label="Axes without samples">${unsampled.map((a) => html`<li><strong>${a}</strong>: no samples in this capture (the probe was attached and recorded nothing)</li>`)}</ul>`
    : "";
  const blocks = items.map(({ flame: f, top }) => {
    const s = f.scale.after;
    const total = s ? absolute(s.total, s) : "";
    return html`<div class="axis-block" data-axis="${f.axis}">${flameFigure(f, `${id}-${f.axis}`, html`<h3>${f.axis}</h3> <span class="muted">${total}${s?.seconds ? ` over ${s.seconds.toFixed(1)} s measured` : ""} · width = share of the axis</span>`)}
<details class="top-details" open><summary>Top functions of ${f.axis}</summary>${topTable(`top-${id}-${f.axis}`, f.axis, top, s)}</details>
<div class="sandwich" data-axis="${f.axis}" data-flame="${`flame-${id}-${f.axis}`}" hidden></div></div>`;
  });
  return html`<section class="card alone" aria-labelledby="${id}-h"><h2 id="${id}-h">${title}</h2>${empty}${blocks}</section>`;
}
