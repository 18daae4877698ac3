// The capture screen: record, instrumentation declaration, this capture on its own (flame graph,
// top table, sandwich per axis), the diff against the automatically chosen baseline or any other
// (pickers), and downloads of this capture, both sides merged, and the diff.
import type { SignedIn } from "../../users/session.ts";
import type { CaptureView } from "../capture-view.ts";
import { pickQuery, type ComparePick, type VersionChoice } from "../compare-sides.ts";
import { diffBody } from "../diff-view.ts";
import { html, isoTime, type Html } from "../html.ts";
import { instrumentationBlock } from "../instrumentation.ts";
import { layout } from "../layout.ts";
import { requesterLabel, stateBadge } from "../records.ts";
import { aloneSection } from "./alone.ts";
import { compareForm } from "./compare-form.ts";

/** The automatic comparison as a pick: the baseline version's head and replicates vs this version's. */
export function automaticPick(v: CaptureView): ComparePick | null {
  const r = v.record;
  if (!v.diff?.comparedWith) return null;
  return {
    workload: r.workload,
    before: { version: v.diff.comparedWith.version, env: r.env, set: "all", ids: [] },
    after: { version: r.version, env: r.env, set: "all", ids: [] },
  };
}

function baselineSentence(v: CaptureView): Html {
  const d = v.diff!;
  const r = v.result;
  if (!d.comparedWith || !r) return html`${d.note}`;
  const n = (k: number) => `${k - 1} replicate${k === 2 ? "" : "s"}`;
  return html`Baseline: <a href="/profiling/captures/${encodeURIComponent(d.comparedWith.requestId)}">version ${d.comparedWith.version}</a> (head and ${n(r.captures.before.length)}), chosen automatically as the latest earlier version; comparison: version ${v.record.version} (head and ${n(r.captures.after.length)}).`;
}

function diffSection(v: CaptureView, choices: VersionChoice[], now: number): Html {
  const link = v.head && v.head.requestId !== v.record.requestId ? html`<p>Diffs belong to the head capture of a version; this replicate feeds the diff of <a href="/profiling/captures/${encodeURIComponent(v.head.requestId)}">the head of ${v.head.version}</a>.</p>` : "";
  const auto = automaticPick(v);
  const picker = choices.length > 1 ? html`<details class="pick"${v.diff?.comparedWith ? "" : html` open`}><summary>Compare with another version, environment or set of captures</summary>${compareForm(v.record.workload, choices, auto ?? { workload: v.record.workload, before: { version: choices.find((c) => c.version !== v.record.version)?.version ?? v.record.version, env: v.record.env, set: "all", ids: [] }, after: { version: v.record.version, env: v.record.env, set: "all", ids: [] } })}</details>` : "";
  if (!v.diff) {
    const why = diffPending(v, now)
      ? "Computing the diff against the prior version: this section updates when it is stored."
      : v.record.kind === "head" && v.record.outcome === "pushed"
        ? "No diff was stored for this capture: computing it failed (the control plane's log has the reason)."
        : "No diff yet: it is computed when a head capture of this version is pushed.";
    return html`<section class="card" aria-labelledby="diff-h" id="diff"><h2 id="diff-h">Diff against the prior version</h2>${link}<p class="muted" id="diff-status">${why}</p>${picker}</section>`;
  }
  const r = v.result;
  const body = r && auto ? diffBody({ result: r, flames: v.flames, absent: v.absent, jsonHref: `/profiling/captures/${encodeURIComponent(diffOwner(v))}/download/diff.json` }) : html`<p><span class="verdict v-none" id="verdict">no baseline</span></p>`;
  return html`<section class="card" aria-labelledby="diff-h" id="diff"><h2 id="diff-h">Diff against the prior version</h2>${link}
<p class="muted" id="baseline">${baselineSentence(v)}</p>${picker}${body}
${auto ? "" : v.absent.length ? html`<ul class="absent" aria-label="Absent axes">${v.absent.map((a) => html`<li><strong>${a.axis}</strong>: absent — ${a.reason}</li>`)}</ul>` : ""}</section>`;
}

const diffOwner = (v: CaptureView) => v.head?.requestId ?? v.record.requestId;

function downloads(v: CaptureView): Html {
  if (!v.hasProfile && !v.diff?.json) return html``;
  const base = `/profiling/captures/${encodeURIComponent(v.record.requestId)}/download`;
  const auto = automaticPick(v);
  const q = auto ? pickQuery(auto) : "";
  const axes = v.flames.map((f) => f.axis);
  return html`<section class="card" aria-labelledby="dl-h"><h2 id="dl-h">Downloads</h2><ul class="downloads">
${v.hasProfile ? html`<li><a href="${base}/pprof" download>This capture: pprof (all axes, .pb.gz)</a></li>
<li><a href="${base}/speedscope" download>This capture: speedscope (.json)</a></li>
${v.presentAxes.map((a) => html`<li><a href="${base}/folded?axis=${encodeURIComponent(a)}" download>This capture: folded stacks, ${a} axis</a></li>`)}` : ""}
${v.diff?.json ? html`<li><a href="/profiling/captures/${encodeURIComponent(diffOwner(v))}/download/diff.json" download>The diff (JSON, every tested function)</a></li>` : ""}
${auto ? axes.map((a) => html`<li><a href="/profiling/compare/download/before?${q}&axis=${encodeURIComponent(a)}" download>Baseline ${auto.before.version}, head and replicates merged: folded stacks, ${a} axis</a></li>
<li><a href="/profiling/compare/download/after?${q}&axis=${encodeURIComponent(a)}" download>Version ${auto.after.version}, head and replicates merged: folded stacks, ${a} axis</a></li>`) : ""}</ul></section>`;
}

/**
 * A pushed head is recorded done a moment before its diff is stored (diff-on-arrival). Past a
 * minute without one, the diff failed: say so rather than wait forever.
 */
const DIFF_GRACE_MS = 60_000;
function diffPending(v: CaptureView, now: number): boolean {
  return v.record.kind === "head" && v.record.outcome === "pushed" && !v.diff && now - v.record.updatedAt < DIFF_GRACE_MS;
}

/** A reason the instrumentation block already prints (a probe that did not attach) is not repeated beside the state. */
function saidByInstrumentation(r: CaptureView["record"]): boolean {
  const reason = r.reason ?? "";
  return (r.instrumentation?.missing ?? []).some((m) => reason.includes(m.reason) || m.reason.includes(reason));
}

/** A pushed head: queue one more capture of its version as a replicate (the noise floor, the confirmation window). */
function replicateForm(session: SignedIn, v: CaptureView): Html {
  const r = v.record;
  if (r.kind !== "head" || r.outcome !== "pushed") return html``;
  return html`<form method="post" action="/profiling/captures" class="row card" id="replicate-form"><input type="hidden" name="_csrf" value="${session.csrf}">
<input type="hidden" name="process" value="${r.workload}"><input type="hidden" name="version" value="${r.version}"><input type="hidden" name="environment" value="${r.env}"><input type="hidden" name="kind" value="replicate">
<p>More captures of ${r.version} narrow the noise floor and confirm suspect changes.</p><div><button type="submit">Queue a replicate of ${r.version}</button></div></form>`;
}

/** Retention removed this capture's profile, or its baseline's: said in words, not left as a missing graph. */
function prunedNote(v: CaptureView): Html {
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const self = v.pruned.self === null ? "" : html`<p class="flash" id="pruned" role="note">This capture's profile was pruned on ${day(v.pruned.self)} by the organization's retention policy: its record and its diff's verdict stay; its flame graphs and downloads are gone.</p>`;
  const base = v.pruned.baseline === null ? "" : html`<p class="flash" id="baseline-pruned" role="note">Baseline pruned on ${day(v.pruned.baseline)} by the retention policy: the diff below was computed before; the baseline's flame graphs are gone.</p>`;
  return html`${self}${base}`;
}

export function capturePage(session: SignedIn, v: CaptureView, now = Date.now(), choices: VersionChoice[] = []): Html {
  const r = v.record;
  // Something on this screen is still to come (the outcome, or the head's diff): the script
  // refetches the page and swaps in what changed, keeping focus and scroll (no full reload).
  const inFlight = r.status !== "done" || diffPending(v, now);
  const body = html`<div id="capture" data-poll="${inFlight ? "1" : "0"}"><p><a href="/profiling" id="back">← Profiling</a></p>
<h1>${r.workload} <span class="muted">${r.version}${r.env ? ` · ${r.env}` : ""}</span></h1>
<dl class="meta"><dt>Kind</dt><dd>${r.kind}</dd><dt>Requester</dt><dd>${requesterLabel(r.requester)}</dd>
<dt>State</dt><dd id="state">${stateBadge(r)}${r.reason && !saidByInstrumentation(r) ? html` — <span id="reason">${r.reason}</span>` : ""}</dd>
<dt>Requested</dt><dd>${isoTime(r.createdAt)}</dd><dt>Request id</dt><dd><code>${r.requestId}</code></dd></dl>
${instrumentationBlock(r.instrumentation)}${replicateForm(session, v)}${prunedNote(v)}${v.profileError ? html`<p class="flash error" role="alert">Flame graphs and downloads unavailable: ${v.profileError}</p>` : ""}${diffSection(v, choices, now)}${aloneSection("This capture on its own", "own", v.alone, v.unsampled)}${downloads(v)}</div>`;
  return layout(`${r.workload} ${r.version}`, body, session, "profiling");
}
