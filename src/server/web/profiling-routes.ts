// The Profiling page, its live rows, the in-app capture form, the capture screen and downloads.
// Every read is scoped to the member's org: another org's request id is a 404, like an unknown one.
import { Elysia } from "elysia";
import { queueAs } from "../captures/queue-capture.ts";
import type { CaptureRecord } from "../store/types.ts";
import type { SignedIn } from "../users/session.ts";
import { fetchSession, formSession, pageSession, type WebDeps } from "./context.ts";
import { captureView, loadCapture } from "./capture-view.ts";
import { download } from "./downloads.ts";
import { field } from "./form.ts";
import { html } from "./html.ts";
import { flash } from "./layout.ts";
import { capturePage } from "./pages/capture.ts";
import { PAGE_SIZE, parseCursor, profilingPage, tableBody, type ProfilingView } from "./pages/profiling.ts";
import { inFlight } from "./records.ts";
import { page, plain, redirect } from "./respond.ts";

function filterOf(u: URL): ProfilingView["filter"] {
  const w = u.searchParams.get("workload");
  const e = u.searchParams.get("env");
  return {
    workload: w ? w : undefined,
    env: e === "(none)" ? "" : e ? e : undefined,
    before: u.searchParams.get("before") ?? undefined,
  };
}

async function records(deps: WebDeps, s: SignedIn, filter: ProfilingView["filter"]) {
  return deps.store.queryCaptures(s.user.orgName, { workload: filter.workload, env: filter.env, before: parseCursor(filter.before ?? null), limit: PAGE_SIZE });
}

async function renderProfiling(deps: WebDeps, s: SignedIn, u: URL, extra: Partial<ProfilingView> = {}, status = 200): Promise<Response> {
  const filter = filterOf(u);
  const [recs, facets, org] = await Promise.all([records(deps, s, filter), deps.store.captureFacets(s.user.orgName), deps.store.getOrg(s.user.orgName)]);
  return page(profilingPage({ session: s, records: recs, facets, filter, profilerEnabled: org?.profilerEnabled ?? false, ...extra }), status);
}

/** The record if it belongs to the member's org; null otherwise (answered as 404 either way). */
async function ownRecord(deps: WebDeps, s: SignedIn, id: string): Promise<CaptureRecord | null> {
  const r = await deps.store.getCapture(id);
  return r && r.orgName === s.user.orgName ? r : null;
}

export function profilingRoutes(deps: WebDeps) {
  return new Elysia()
    .get("/", () => redirect("/profiling"))
    .get("/profiling", async ({ request }) => {
      const s = await pageSession(deps, request);
      if (s instanceof Response) return s;
      const u = new URL(request.url);
      const queued = u.searchParams.get("queued");
      const message = queued
        ? flash("ok", u.searchParams.get("deduped") === "1" ? html`An identical request is already in flight: <a href="/profiling/captures/${encodeURIComponent(queued)}">${queued}</a>.` : html`Capture queued: <a href="/profiling/captures/${encodeURIComponent(queued)}">${queued}</a>.`)
        : undefined;
      return renderProfiling(deps, s, u, { message });
    })
    .get("/profiling/rows", async ({ request }) => {
      const s = await fetchSession(deps, request);
      if (s instanceof Response) return s;
      const recs = await records(deps, s, { ...filterOf(new URL(request.url)), before: undefined });
      return new Response(tableBody(recs).text, {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff", "x-live": inFlight(recs) ? "1" : "0" },
      });
    })
    .post(
      "/profiling/captures",
      async ({ request }) => {
        const r = await formSession(deps, request);
        if (r instanceof Response) return r;
        const { session, form } = r;
        const org = await deps.store.getOrg(session.user.orgName);
        if (!org) return plain(404, "organization not found");
        const values = { process: field(form, "process"), version: field(form, "version"), environment: field(form, "environment") };
        // The form's three fields become the API's body, so the API's own validation words the errors.
        const body = JSON.stringify({ workload: values.process, version: values.version, env: values.environment });
        const answer = await queueAs(deps, org, session.user.email, async () => ({ ok: true, text: body }));
        if (answer.status === 202) {
          const b = answer.body as { request_id: string; deduped: boolean };
          return redirect(`/profiling?queued=${encodeURIComponent(b.request_id)}${b.deduped ? "&deduped=1" : ""}`);
        }
        const err = answer.body as { error: string; field?: string };
        const label: Record<string, string> = { workload: "process", env: "environment" };
        const text = err.field ? err.error.replace(new RegExp(`^${err.field}\\b`), label[err.field] ?? err.field) : err.error;
        return renderProfiling(deps, session, new URL("/profiling", request.url), { message: flash("error", text), form: values }, answer.status);
      },
      { parse: "none" },
    )
    .get("/profiling/captures/:id", async ({ request, params }) => {
      const s = await pageSession(deps, request);
      if (s instanceof Response) return s;
      const rec = await ownRecord(deps, s, params.id);
      if (!rec) return plain(404, "no such capture record in your organization");
      return page(capturePage(s, await captureView(deps.store, rec), deps.now()));
    })
    .get("/profiling/captures/:id/download/:format", async ({ request, params }) => {
      const s = await pageSession(deps, request);
      if (s instanceof Response) return s;
      const rec = await ownRecord(deps, s, params.id);
      if (!rec) return plain(404, "no such capture record in your organization");
      const capture = await loadCapture(deps.store, rec.requestId);
      if (!capture) return plain(404, "this capture has no pushed profile");
      return download(rec, capture, params.format, new URL(request.url).searchParams.get("axis"));
    });
}
