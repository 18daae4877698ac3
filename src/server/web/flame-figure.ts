// The markup of one flame graph (the script draws it from the JSON beside it): search, reset,
// view switch, the graph itself (one Tab stop, arrow keys move between frames), a tooltip.
import { html, jsonScript, type Html } from "./html.ts";
import type { FlameAxis } from "./flame-data.ts";

export function flameFigure(f: FlameAxis, id: string, caption: Html | string): Html {
  const views =
    f.mode === "diff"
      ? html`<label for="view-${id}">View</label><select id="view-${id}" class="flame-view"><option value="diff" selected>differential</option><option value="before">before only</option><option value="after">after only</option><option value="split">side by side</option></select>`
      : "";
  return html`<figure class="flame" data-axis="${f.axis}" id="fig-${id}"><figcaption>${caption}</figcaption>
<div class="flame-tools"><label for="search-${id}">Search</label><input type="search" id="search-${id}" class="flame-search" aria-controls="graph-${id}">
${views}<button type="button" class="flame-reset">Reset zoom</button><span class="flame-match muted" aria-live="polite"></span></div>
<div class="flame-panes"><div class="flame-graph" id="graph-${id}" role="group" aria-roledescription="flame graph" aria-label="${f.mode === "diff" ? "Differential flame graph" : "Flame graph"} of ${f.axis}; arrow keys move between frames, Enter zooms, Escape resets"></div></div>
<div class="flame-tip" role="tooltip" hidden></div>
${jsonScript(`flame-${id}`, f)}</figure>`;
}
