// The Profiling page, its live rows, the in-app capture form, the capture screen and downloads.
// Every read is scoped to the member's org: another org's request id is a 404, like an unknown one.
import { Elysia } from "elysia";
import { queueAs } from "../captures/queue-capture.ts";
import type { CaptureRecord } from "../store/types.ts";
import type { SignedIn } from "../users/session.ts";
import { fetchSession, formSession, guarded, pageSession, type WebDeps } from "./context.ts";
import { captureView, loadCapture } from "./capture-view.ts";
import { diffJson, download, mergedFolded } from "./downloads.ts";
import { parsePick, pickQuery, versionChoices } from "./compare-sides.ts";
import { compare, compareRecords, loadSide } from "./compare-view.ts";
import { comparePage } from "./pages/compare.ts";
import { field } from "./form.ts";
import { html } from "./html.ts";
import { flash } from "./layout.ts";
import { capturePage } from "./pages/capture.ts";
import { PAGE_SIZE, parseCursor, profilingPage, tableBody, type ProfilingView } from "./pages/profiling.ts";
import { inFlight } from "./records.ts";
import { matchesVerdict, rowVerdicts, VERDICT_FILTERS } from "./list-verdicts.ts";
import { page, plain, redirect } from "./respond.ts";

function filterOf(u: URL): ProfilingView["filter"] {
  const w = u.searchParams.get("workload");
  const e = u.searchParams.get("env");
  return {
    workload: w ? w : undefined,
    env: e === "(none)" ? "" : e ? e : undefined,
    before: u.searchParams.get("before") ?? undefined,
    verdict: VERDICT_FILTERS.some(([v]) => v === u.searchParams.get("verdict")) ? u.searchParams.get("verdict")! : undefined,
  };
}

/** With a verdict filter, this many newest records are examined per page (verdicts are not a store column). */
const VERDICT_SCAN = 1000;

async function records(deps: WebDeps, s: SignedIn, filter: ProfilingView["filter"]) {
  const q = { workload: filter.workload, env: filter.env, before: parseCursor(filter.before ?? null) };
  if (!filter.verdict) {
    const recs = await deps.store.queryCaptures(s.user.orgName, { ...q, limit: PAGE_SIZE });
    return { recs, verdicts: await rowVerdicts(deps.store, recs), scannedTo: undefined };
  }
  const scanned = await deps.store.queryCaptures(s.user.orgName, { ...q, limit: VERDICT_SCAN });
  const verdicts = await rowVerdicts(deps.store, scanned);
  const recs = scanned.filter((r) => matchesVerdict(filter.verdict!, verdicts.get(r.requestId))).slice(0, PAGE_SIZE);
  const last = recs.length === PAGE_SIZE ? recs.at(-1) : scanned.length === VERDICT_SCAN ? scanned.at(-1) : undefined;
  return { recs, verdicts, scannedTo: last };
}

async function renderProfiling(deps: WebDeps, s: SignedIn, u: URL, extra: Partial<ProfilingView> = {}, status = 200): Promise<Response> {
  const filter = filterOf(u);
  const [r, facets, org] = await Promise.all([records(deps, s, filter), deps.store.captureFacets(s.user.orgName), deps.store.getOrg(s.user.orgName)]);
  return page(profilingPage({ session: s, records: r.recs, verdicts: r.verdicts, scannedTo: r.scannedTo, facets, filter, profilerEnabled: org?.profilerEnabled ?? false, ...extra }), status);
}

/** The record if it belongs to the member's org; null otherwise (answered as 404 either way). */
async function ownRecord(deps: WebDeps, s: SignedIn, id: string): Promise<CaptureRecord | null> {
  const r = await deps.store.getCapture(id);
  return r && r.orgName === s.user.orgName ? r : null;
}

export function profilingRoutes(deps: WebDeps) {
  return new Elysia()
    .get("/", () => redirect("/profiling"))
    .get("/profiling", guarded(deps, pageSession, async (s, request) => {
      const u = new URL(request.url);
      const queued = u.searchParams.get("queued");
      const message = queued
        ? flash("ok", u.searchParams.get("deduped") === "1" ? html`An identical request is already in flight: <a href="/profiling/captures/${encodeURIComponent(queued)}">${queued}</a>.` : html`Capture queued: <a href="/profiling/captures/${encodeURIComponent(queued)}">${queued}</a>.`)
        : undefined;
      return renderProfiling(deps, s, u, { message });
    }))
    .get("/profiling/rows", guarded(deps, fetchSession, async (s, request) => {
      const { recs, verdicts } = await records(deps, s, { ...filterOf(new URL(request.url)), before: undefined });
      // A fragment the page's script swaps in, served with the page's own headers (its CSP included).
      return page(tableBody(recs, verdicts), 200, { "x-live": inFlight(recs) ? "1" : "0" });
    }))
    .post(
      "/profiling/captures",
      guarded(deps, formSession, async (r, request) => {
        const { session, form } = r;
        const org = await deps.store.getOrg(session.user.orgName);
        if (!org) return plain(404, "organization not found");
        const values = { process: field(form, "process"), version: field(form, "version"), environment: field(form, "environment") };
        // The form's three fields become the API's body, so the API's own validation words the errors.
        // The capture screen of a pushed head offers "queue a replicate" (same three values, kind=replicate).
        const kind = field(form, "kind") === "replicate" ? "replicate" : undefined;
        const body = JSON.stringify({ workload: values.process, version: values.version, env: values.environment, ...(kind ? { kind } : {}) });
        const answer = await queueAs(deps, org, session.user.email, async () => ({ ok: true, text: body }));
        if (answer.status === 202) {
          const b = answer.body as { request_id: string; deduped: boolean };
          return redirect(`/profiling?queued=${encodeURIComponent(b.request_id)}${b.deduped ? "&deduped=1" : ""}`);
        }
        const err = answer.body as { error: string; field?: string };
        const label: Record<string, string> = { workload: "process", env: "environment" };
        const text = err.field ? err.error.replace(new RegExp(`^${err.field}\\b`), label[err.field] ?? err.field) : err.error;
        return renderProfiling(deps, session, new URL("/profiling", request.url), { message: flash("error", text), form: values }, answer.status);
      }),
      { parse: "none" },
    )
    .get("/profiling/captures/:id", guarded(deps, pageSession, async (s, request, params: { id: string }) => {
      const rec = await ownRecord(deps, s, params.id);
      if (!rec) return plain(404, "no such capture record in your organization");
      const [view, choices] = await Promise.all([captureView(deps.store, rec), versionChoices(deps.store, s.user.orgName, rec.workload)]);
      return page(capturePage(s, view, deps.now(), choices));
    }))
    .get("/profiling/compare", guarded(deps, pageSession, async (s, request) => {
      const u = new URL(request.url).searchParams;
      const facets = await deps.store.captureFacets(s.user.orgName);
      const workload = u.get("workload") ?? facets.workloads[0] ?? "";
      const choices = workload ? await versionChoices(deps.store, s.user.orgName, workload) : [];
      // Only the workload chosen (or nothing): the pickers, no diff yet.
      const picked = u.has("b_version") || u.has("a_version");
      const pick = picked ? parsePick(u) : null;
      const result = typeof pick === "string" ? pick : pick ? await compare(deps.store, s.user.orgName, pick) : null;
      return page(comparePage(s, workload, facets.workloads, choices, typeof pick === "string" ? null : pick, result), typeof result === "string" ? 422 : 200);
    }))
    .get("/profiling/compare/download/:what", guarded(deps, pageSession, async (s, request, params: { what: string }) => {
      const u = new URL(request.url).searchParams;
      const pick = parsePick(u);
      if (typeof pick === "string") return plain(400, pick);
      const name = `${pick.workload}-${pick.before.version}-vs-${pick.after.version}`;
      if (params.what === "diff.json") {
        const c = await compare(deps.store, s.user.orgName, pick);
        if (typeof c === "string") return plain(404, c);
        return diffJson(name, JSON.stringify({ baseline: c.records.before.map((r) => r.requestId), comparison: c.records.after.map((r) => r.requestId), query: pickQuery(pick), ...c.result }));
      }
      if (params.what === "before" || params.what === "after") {
        const records = await compareRecords(deps.store, s.user.orgName, pick);
        if (typeof records === "string") return plain(404, records);
        let caps;
        try {
          caps = await loadSide(deps.store, records[params.what]);
        } catch (err) {
          return plain(404, `a stored profile could not be read: ${(err as Error).message}`);
        }
        if (!caps.length) return plain(404, "a side has no stored profile");
        const sp = pick[params.what];
        return mergedFolded(`${pick.workload}-${sp.version}${sp.env ? `-${sp.env}` : ""}-merged`, caps, u.get("axis"));
      }
      return plain(404, `unknown download "${params.what}"; use diff.json, before or after`);
    }))
    .get("/profiling/captures/:id/download/:format", guarded(deps, pageSession, async (s, request, params: { id: string; format: string }) => {
      const rec = await ownRecord(deps, s, params.id);
      if (!rec) return plain(404, "no such capture record in your organization");
      if (params.format === "diff.json") {
        const d = await deps.store.getDiff(rec.requestId);
        if (!d?.json) return plain(404, d ? `no diff: ${d.note}` : "no diff is stored for this capture");
        return diffJson(`${rec.workload}-${rec.version}${rec.env ? `-${rec.env}` : ""}`, d.json);
      }
      const capture = await loadCapture(deps.store, rec.requestId);
      if (!capture) return plain(404, "this capture has no pushed profile");
      return download(rec, capture, params.format, new URL(request.url).searchParams.get("axis"));
    }));
}
