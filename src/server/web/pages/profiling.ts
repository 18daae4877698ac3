// The Profiling page: the capture form (process, version, environment only), filters, and every
// capture record of the org newest first, paged by keyset; the first page refreshes itself while
// any shown request is queued or running.
import type { CaptureRecord } from "../../store/types.ts";
import type { SignedIn } from "../../users/session.ts";
import { html, type Html } from "../html.ts";
import { layout } from "../layout.ts";
import { inFlight, recordRow } from "../records.ts";
import { VERDICT_FILTERS, verdictCell, type RowVerdict } from "../list-verdicts.ts";

// 100 rows: Chromium painted 200 rows ~20% later (bench/web-profiling-page.ts); older pages are one click away.
export const PAGE_SIZE = 100;

export interface ProfilingView {
  session: SignedIn;
  records: CaptureRecord[];
  verdicts: Map<string, RowVerdict>;
  facets: { workloads: string[]; envs: string[] };
  filter: { workload?: string; env?: string; before?: string; verdict?: string };
  /** With a verdict filter: the last record examined, where "Older records" continues. */
  scannedTo?: CaptureRecord;
  profilerEnabled: boolean;
  message?: Html;
  form?: { process?: string; version?: string; environment?: string };
}

export function cursorOf(r: CaptureRecord): string {
  return `${r.createdAt}.${r.requestId}`;
}

export function parseCursor(s: string | null): { createdAt: number; requestId: string } | undefined {
  const m = s ? /^(\d{1,16})\.([\w-]{1,64})$/.exec(s) : null;
  return m ? { createdAt: Number(m[1]), requestId: m[2]! } : undefined;
}

function select(name: string, label: string, values: string[], current: string | undefined, emptyLabel: string): Html {
  const opts = values.map((v) => html`<option value="${v}"${v === current ? html` selected` : ""}>${v === "" ? emptyLabel : v}</option>`);
  return html`<label for="f-${name}">${label}</label><select id="f-${name}" name="${name}"><option value=""${current === undefined ? html` selected` : ""}>all</option>${
    name === "env" ? html`<option value="(none)"${current === "" ? html` selected` : ""}>(no env)</option>` : ""
  }${opts.filter((_, i) => values[i] !== "")}</select>`;
}

export function rowsQuery(filter: ProfilingView["filter"]): string {
  const q = new URLSearchParams();
  if (filter.workload !== undefined) q.set("workload", filter.workload);
  if (filter.env !== undefined) q.set("env", filter.env === "" ? "(none)" : filter.env);
  if (filter.verdict) q.set("verdict", filter.verdict);
  return q.toString();
}

export function tableBody(records: CaptureRecord[], verdicts: Map<string, RowVerdict>): Html {
  return records.length ? html`${records.map((r) => recordRow(r, verdicts.get(r.requestId)))}` : html`<tr><td colspan="9" class="muted">No capture records match.</td></tr>`;
}

/** After a deploy: the newest head of each (workload, env, version) shown, with its verdict. */
function versionSummary(v: ProfilingView): Html {
  const seen = new Set<string>();
  const rows: Html[] = [];
  for (const r of v.records) {
    const verdict = v.verdicts.get(r.requestId);
    if (r.kind !== "head" || !verdict) continue;
    const k = `${r.workload}\u0000${r.env}\u0000${r.version}`;
    if (seen.has(k)) continue;
    seen.add(k);
    if (rows.length >= 8) break;
    rows.push(html`<tr><td><a href="/profiling/captures/${encodeURIComponent(r.requestId)}">${r.workload}</a></td><td>${r.version}</td><td>${r.env || html`<span class="muted">(none)</span>`}</td>${verdictCell(verdict)}</tr>`);
  }
  if (!rows.length) return html``;
  return html`<section class="card" aria-labelledby="sum-h"><h2 id="sum-h">Latest versions</h2><div class="scroll"><table class="summary-table"><caption class="sr-only">The newest versions shown below and what changed in each</caption><thead><tr><th scope="col">Workload</th><th scope="col">Version</th><th scope="col">Env</th><th scope="col">Verdict (flagged functions)</th></tr></thead><tbody>${rows}</tbody></table></div>
<p><a href="/profiling/compare">Compare any two versions…</a></p></section>`;
}

export function profilingPage(v: ProfilingView): Html {
  const f = v.form ?? {};
  const live = !v.filter.before && inFlight(v.records);
  const older = v.scannedTo ?? (v.records.length === PAGE_SIZE ? v.records.at(-1) : undefined);
  const rq = rowsQuery(v.filter);
  const body = html`<h1>Profiling</h1>
${v.message ?? ""}
<section aria-labelledby="form-h" class="card"><h2 id="form-h">Queue a capture</h2>
${v.profilerEnabled ? "" : html`<p class="muted">The Profiler is not enabled for this organization; an owner or admin enables it in <a href="/settings">Settings</a>.</p>`}
<form method="post" action="/profiling/captures" class="row" id="capture-form">
<input type="hidden" name="_csrf" value="${v.session.csrf}">
<div><label for="process">Process</label><input id="process" name="process" required maxlength="256" value="${f.process ?? ""}"></div>
<div><label for="version">Version</label><input id="version" name="version" required maxlength="256" value="${f.version ?? ""}"></div>
<div><label for="environment">Environment <span class="muted">(optional)</span></label><input id="environment" name="environment" maxlength="256" value="${f.environment ?? ""}"></div>
<div><button type="submit">Queue capture</button></div></form></section>
${v.filter.before ? "" : versionSummary(v)}<section aria-labelledby="rec-h"><h2 id="rec-h">Capture records</h2>
<form method="get" action="/profiling" class="row filters" role="search" aria-label="Filter capture records">
<div>${select("workload", "Workload", v.facets.workloads, v.filter.workload, "")}</div>
<div>${select("env", "Environment", v.facets.envs, v.filter.env, "(no env)")}</div>
<div><label for="f-verdict">Verdict</label><select id="f-verdict" name="verdict"><option value="">all</option>${VERDICT_FILTERS.map(([val, label]) => html`<option value="${val}"${v.filter.verdict === val ? html` selected` : ""}>${label}</option>`)}</select></div>
<div><button type="submit">Filter</button></div></form>
<table class="records"><caption class="sr-only">Capture records, newest first</caption>
<thead><tr><th scope="col">Requested</th><th scope="col">Workload</th><th scope="col">Version</th><th scope="col">Env</th><th scope="col">Kind</th><th scope="col">Requester</th><th scope="col">State</th><th scope="col">Verdict</th><th scope="col">Reason</th></tr></thead>
<tbody id="records" aria-live="polite" data-live="${live ? "1" : "0"}" data-rows="/profiling/rows${rq ? `?${rq}` : ""}">${tableBody(v.records, v.verdicts)}</tbody></table>
${older ? html`<p><a href="/profiling?${rq ? `${rq}&` : ""}before=${encodeURIComponent(cursorOf(older))}">Older records</a></p>` : ""}
</section>`;
  return layout("Profiling", body, v.session, "profiling");
}
