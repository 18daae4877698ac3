// The comparison page: the pickers, then the diff of whatever the reader picked — the same
// statistics and the same view as the capture screen's automatic diff — and its downloads.
import type { SignedIn } from "../../users/session.ts";
import { pickQuery, type ComparePick, type VersionChoice } from "../compare-sides.ts";
import type { Comparison } from "../compare-view.ts";
import { diffBody } from "../diff-view.ts";
import { html, type Html } from "../html.ts";
import { flash, layout } from "../layout.ts";
import { compareForm } from "./compare-form.ts";

function side(s: ComparePick["before"], rs: Comparison["records"]["before"]): Html {
  return html`version ${s.version}${s.env ? ` · ${s.env}` : ""} (${rs.map((r, i) => html`${i ? ", " : ""}<a href="/profiling/captures/${encodeURIComponent(r.requestId)}">${r.kind}</a>`)})`;
}

export function comparePage(session: SignedIn, workload: string, workloads: string[], choices: VersionChoice[], pick: ComparePick | null, c: Comparison | string | null): Html {
  const wl = html`<form method="get" action="/profiling/compare" class="row" aria-label="Workload"><div><label for="c-workload">Workload</label><select id="c-workload" name="workload">${workloads.map((w) => html`<option value="${w}"${w === workload ? html` selected` : ""}>${w}</option>`)}</select></div><div><button type="submit">Choose</button></div></form>`;
  let result: Html = html``;
  if (typeof c === "string") result = flash("error", `Cannot compare: ${c}.`);
  else if (c) {
    const q = pickQuery(c.pick);
    const dl = c.flames.map(
      (f) => html`<li><a href="/profiling/compare/download/before?${q}&axis=${encodeURIComponent(f.axis)}" download>Baseline merged: folded stacks, ${f.axis} axis</a></li><li><a href="/profiling/compare/download/after?${q}&axis=${encodeURIComponent(f.axis)}" download>Comparison merged: folded stacks, ${f.axis} axis</a></li>`,
    );
    result = html`<section class="card" aria-labelledby="diff-h" id="diff"><h2 id="diff-h">Diff</h2>
<p id="baseline">Baseline: ${side(c.pick.before, c.records.before)}; comparison: ${side(c.pick.after, c.records.after)}.</p>
${diffBody({ result: c.result, flames: c.flames, absent: c.absent, jsonHref: `/profiling/compare/download/diff.json?${q}` })}</section>
<section class="card" aria-labelledby="dl-h"><h2 id="dl-h">Downloads</h2><ul class="downloads"><li><a href="/profiling/compare/download/diff.json?${q}" download>The diff (JSON, every tested function)</a></li>${dl}</ul></section>`;
  }
  const body = html`<p><a href="/profiling">← Profiling</a></p><h1>Compare${workload ? html` <span class="muted">${workload}</span>` : ""}</h1>
<section class="card" aria-labelledby="pick-h"><h2 id="pick-h">What to compare</h2>${wl}${workload ? (choices.length ? compareForm(workload, choices, pick) : html`<p class="muted">No pushed capture of ${workload} yet.</p>`) : ""}</section>${result}`;
  return layout(`Compare ${workload}`, body, session, "profiling");
}
