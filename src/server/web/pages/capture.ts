// The capture screen: record, instrumentation declaration, the diff against the prior version
// (verdict, a differential flame graph per axis, absent axes, the ranked table of changes), downloads.
import type { Change } from "../../../witness/diff.ts";
import type { SignedIn } from "../../users/session.ts";
import type { CaptureView } from "../capture-view.ts";
import { html, isoTime, jsonScript, type Html } from "../html.ts";
import { instrumentationBlock } from "../instrumentation.ts";
import { layout } from "../layout.ts";
import { requesterLabel, stateBadge } from "../records.ts";
import { signedPercent as pct } from "../../../witness/table.ts";

const TABLE_ROWS = 100;

function ranked(changes: Change[]): Change[] {
  return [...changes].sort((a, b) => Number(b.flagged) - Number(a.flagged) || a.adjusted_p - b.adjusted_p || Math.abs(b.relative_change) - Math.abs(a.relative_change));
}

function changeTable(changes: Change[]): Html {
  if (changes.length === 0) return html`<p class="muted">No function was tested (too few samples on both sides).</p>`;
  const rows = ranked(changes).slice(0, TABLE_ROWS).map(
    (c) => html`<tr class="${c.flagged ? `flag-${c.direction}` : ""}"><td class="fn">${c.function}</td><td>${c.axis} · ${c.kind}</td>
<td>${pct(c.relative_change)}</td><td>[${pct(c.interval[0])}, ${pct(c.interval[1])}]</td>
<td>${(c.before.share * 100).toFixed(2)}% → ${(c.after.share * 100).toFixed(2)}%</td>
<td>${c.flagged ? "changed" : c.verdict}</td><td>${c.flagged ? (c.confirmation ?? "") : "—"}</td></tr>`,
  );
  return html`<table class="changes"><caption class="sr-only">Changes ranked by evidence</caption><thead><tr><th scope="col">Function</th><th scope="col">Axis</th><th scope="col">Change</th><th scope="col">95% interval</th><th scope="col">Share before → after</th><th scope="col">Verdict</th><th scope="col">Confirmation</th></tr></thead>
<tbody>${rows}</tbody></table>${changes.length > TABLE_ROWS ? html`<p class="muted">${TABLE_ROWS} of ${changes.length} tested functions shown; the full list is in the downloads of witness.</p>` : ""}`;
}

function diffSection(v: CaptureView, now: number): Html {
  const link = v.head && v.head.requestId !== v.record.requestId ? html`<p>Diffs belong to the head capture of a version; this replicate feeds the diff of <a href="/profiling/captures/${encodeURIComponent(v.head.requestId)}">the head of ${v.head.version}</a>.</p>` : "";
  if (!v.diff) {
    const why = diffPending(v, now)
      ? "Computing the diff against the prior version: this page reloads when it is stored."
      : v.record.kind === "head" && v.record.outcome === "pushed"
        ? "No diff was stored for this capture: computing it failed (the control plane's log has the reason)."
        : "No diff yet: it is computed when a head capture of this version is pushed.";
    return html`<section class="card" aria-labelledby="diff-h"><h2 id="diff-h">Diff against the prior version</h2>${link}<p class="muted" id="diff-status">${why}</p></section>`;
  }
  const r = v.result;
  const compared = v.diff.comparedWith
    ? html`Compared with <a href="/profiling/captures/${encodeURIComponent(v.diff.comparedWith.requestId)}">version ${v.diff.comparedWith.version}</a>.`
    : "";
  const absent = v.absent.length
    ? html`<ul class="absent" aria-label="Absent axes">${v.absent.map((a) => html`<li><strong>${a.axis}</strong>: absent — ${a.reason}</li>`)}</ul>`
    : "";
  const graphs = v.flames.map(
    (f) => html`<figure class="flame" data-axis="${f.axis}"><figcaption><h3>${f.axis}</h3> <span class="muted">${f.unit} · ${f.captures.before} before vs ${f.captures.after} after captures · width = after, colour = flagged change</span></figcaption>
<div class="flame-tools"><label for="search-${f.axis}">Search</label><input type="search" id="search-${f.axis}" class="flame-search" aria-controls="graph-${f.axis}">
<button type="button" class="flame-reset">Reset zoom</button><span class="flame-match muted" aria-live="polite"></span></div>
<div class="flame-graph" id="graph-${f.axis}" role="group" aria-label="Differential flame graph of ${f.axis}; Enter on a frame zooms into it"></div>
<div class="flame-tip" role="tooltip" hidden></div>
${jsonScript(`flame-${f.axis}`, f)}</figure>`,
  );
  return html`<section class="card" aria-labelledby="diff-h"><h2 id="diff-h">Diff against the prior version</h2>${link}
<p><span class="verdict v-${r?.verdict ?? "none"}" id="verdict">${r ? r.verdict : "no diff"}</span> ${r?.reason ?? ""}</p>
<p class="muted">${compared} ${v.diff.note}</p>
${r ? html`<p class="legend"><span class="sw up"></span> grew (flagged) <span class="sw down"></span> shrank (flagged) <span class="sw noise"></span> within noise <span class="sw untested"></span> not tested</p>` : ""}
${absent}${graphs}${r ? html`<h3>Ranked changes</h3>${changeTable(r.changes)}` : ""}</section>`;
}

function downloads(v: CaptureView): Html {
  if (!v.hasProfile) return html``;
  const base = `/profiling/captures/${encodeURIComponent(v.record.requestId)}/download`;
  return html`<section class="card" aria-labelledby="dl-h"><h2 id="dl-h">Downloads</h2><ul class="downloads">
<li><a href="${base}/pprof" download>pprof (all axes, .pb.gz)</a></li>
<li><a href="${base}/speedscope" download>speedscope (.json)</a></li>
${v.presentAxes.map((a) => html`<li><a href="${base}/folded?axis=${encodeURIComponent(a)}" download>folded stacks, ${a} axis</a></li>`)}</ul></section>`;
}

/**
 * A pushed head is recorded done a moment before its diff is stored (diff-on-arrival). Past a
 * minute without one, the diff failed: say so rather than reload forever.
 */
const DIFF_GRACE_MS = 60_000;
function diffPending(v: CaptureView, now: number): boolean {
  return v.record.kind === "head" && v.record.outcome === "pushed" && !v.diff && now - v.record.updatedAt < DIFF_GRACE_MS;
}

export function capturePage(session: SignedIn, v: CaptureView, now = Date.now()): Html {
  const r = v.record;
  const body = html`<p><a href="/profiling">← Profiling</a></p>
<h1>${r.workload} <span class="muted">${r.version}${r.env ? ` · ${r.env}` : ""}</span></h1>
<dl class="meta"><dt>Kind</dt><dd>${r.kind}</dd><dt>Requester</dt><dd>${requesterLabel(r.requester)}</dd>
<dt>State</dt><dd>${stateBadge(r)}${r.reason ? html` — <span id="reason">${r.reason}</span>` : ""}</dd>
<dt>Requested</dt><dd>${isoTime(r.createdAt)}</dd><dt>Request id</dt><dd><code>${r.requestId}</code></dd></dl>
${instrumentationBlock(r.instrumentation)}${v.profileError ? html`<p class="flash error" role="alert">Flame graphs and downloads unavailable: ${v.profileError}</p>` : ""}${diffSection(v, now)}${downloads(v)}`;
  // Reload while something on this screen is still to come: the outcome, or the head's diff.
  const inFlight = r.status !== "done" || diffPending(v, now);
  return layout(`${r.workload} ${r.version}`, body, session, "profiling", inFlight ? 3 : undefined);
}
