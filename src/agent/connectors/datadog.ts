import { type TSchema, Type } from "@sinclair/typebox";
import { type Connector, op, type Operation } from "../catalog.ts";
import type { AgentContext } from "../context.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { httpJson, type HttpResult, urlOf } from "./http.ts";

// Datadog (metrics/logs platform A). Which request carries which key, decided with Datadog's API
// reference in hand (every read endpoint used here lists both apiKeyAuth and appKeyAuth; the
// validate endpoint lists apiKeyAuth alone):
//   GET /api/v1/validate          DD-API-KEY only. The site check: once on the configured site
//                                 and, when that answers 403, on each other regional site to find
//                                 the organization's one. Health runs it first; an operation runs
//                                 it only after Datadog refused it with 403.
//   every operation's request     DD-API-KEY + DD-APPLICATION-KEY. Datadog refuses a read without
//                                 the API key, so it cannot be kept to validate; it carries no
//                                 scope and grants nothing by itself. The application key's scopes
//                                 decide what the request may read.
// A valid key answers 403 when the organization lives on another regional site, and Datadog's 403
// reads the same for a missing scope. The reference says the site is checked before scopes, so a
// 403 blames a scope only once validate has accepted the API key on the configured site.
//
// RUNNER_DATADOG_SITE (default datadoghq.com); DATADOG_API_KEY, DATADOG_APP_KEY (secrets);
// RUNNER_DATADOG_URL_TEMPLATE (default https://api.{site}) for proxies and tests.

export const DATADOG_SITES = ["datadoghq.com", "us3.datadoghq.com", "us5.datadoghq.com", "datadoghq.eu", "ap1.datadoghq.com", "ap2.datadoghq.com", "ddog-gov.com"];

export interface DatadogHandle {
  site: string;
  template: string;
  apiKey: string;
  appKey: string | undefined;
}

const baseFor = (h: DatadogHandle, site: string) => h.template.replace("{site}", site);

async function validate(h: DatadogHandle, site: string): Promise<HttpResult> {
  return httpJson(urlOf(baseFor(h, site), "/api/v1/validate"), { headers: { "DD-API-KEY": h.apiKey }, timeoutMs: 10_000 });
}

/** The site before scopes: undefined when the API key is valid on the configured site. */
async function siteProblem(h: DatadogHandle): Promise<AgentError | undefined> {
  const here = await validate(h, h.site);
  if (here.status === 200 && here.body?.valid === true) return undefined;
  if (here.status === 403) return wrongSite(h);
  return new AgentError("permission", `Datadog rejected the API key on ${h.site} (${here.status})`);
}

/** validate answered 403 on the configured site: is the key valid on another site? */
async function wrongSite(h: DatadogHandle): Promise<AgentError> {
  for (const site of DATADOG_SITES.filter((s) => s !== h.site)) {
    const there = await validate(h, site);
    if (there.status === 200 && there.body?.valid === true) {
      return new AgentError(
        "misconfigured",
        `Datadog answered 403 on ${h.site}, but the API key is valid on ${site}: the organization lives on that regional site. Set RUNNER_DATADOG_SITE=${site} (this is not a permission problem; do not change scopes)`,
        { fix: `set RUNNER_DATADOG_SITE=${site}` },
      );
    }
  }
  return new AgentError("permission", `Datadog rejected the API key on ${h.site} and on every other site: the key is invalid or revoked`);
}

/** A 403: the site first (validate, unless health just did), and only on the right site the scope. */
async function forbidden(h: DatadogHandle, opName: string, scopes: string[], siteChecked: boolean): Promise<AgentError> {
  const site = siteChecked ? undefined : await siteProblem(h);
  if (site) return site;
  if (!scopes.length) return new AgentError("permission", `${opName} was refused (403) on ${h.site}, where the API key is valid: the application key cannot read metrics; use a standard application key`, { fix: "use a standard application key" });
  return new AgentError("permission", `${opName} was refused (403) on ${h.site}, where the API key is valid: the application key lacks scope ${scopes.join(" + ")}; add it to the key's scopes`, {
    missing: scopes,
    fix: `add scope ${scopes.join(" + ")} to the application key`,
  });
}

async function call(h: DatadogHandle, opName: string, scopes: string[], path: string, init: { method?: "GET" | "POST"; query?: Record<string, string | number | undefined>; json?: unknown }, siteChecked = false) {
  if (!h.appKey) throw new AgentError("not_configured", `${opName} needs DATADOG_APP_KEY (an application key${scopes.length ? ` with scope ${scopes.join(" + ")}` : ""})`);
  const res = await httpJson(urlOf(baseFor(h, h.site), path, init.query), {
    method: init.method,
    json: init.json,
    // Both keys: Datadog requires the API key on every read, next to the application key.
    headers: { "DD-API-KEY": h.apiKey, "DD-APPLICATION-KEY": h.appKey },
  });
  if (res.status >= 200 && res.status < 300) return res.body;
  if (res.status === 403) throw await forbidden(h, opName, scopes, siteChecked);
  if (res.status === 401) throw new AgentError("permission", `${opName} was refused (401): the API key or application key is invalid or revoked`);
  throw new AgentError("upstream", `${opName} failed: Datadog answered ${res.status}`);
}

interface Spec {
  name: string;
  summary: string;
  scopes: string[];
  args: TSchema;
  example: any;
  request: (a: any) => { path: string; method?: "GET" | "POST"; query?: Record<string, string | number | undefined>; json?: unknown };
}

function ddOp(s: Spec): Operation<DatadogHandle> {
  return op<DatadogHandle, TSchema>({
    name: s.name,
    connector: "datadog",
    access: "read",
    summary: s.summary,
    permission: { system: "datadog-scope", needs: s.scopes.length ? s.scopes : ["(no scope: a standard application key reads metrics)"] },
    args: s.args,
    example: s.example,
    run: (h, a) => {
      const r = s.request(a);
      return call(h, s.name, s.scopes, r.path, r);
    },
  });
}

const epoch = Type.Integer({ minimum: 0 });
const search = Type.Object({ query: Type.String({ minLength: 1 }), from: Type.String({ minLength: 1 }), to: Type.Optional(Type.String()), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }, { additionalProperties: false });
const searchBody = (a: { query: string; from: string; to?: string; limit?: number }) => ({ filter: { query: a.query, from: a.from, to: a.to ?? "now" }, page: { limit: a.limit ?? 50 }, sort: "-timestamp" });
const none = Type.Object({}, { additionalProperties: false });

// POST on the three search endpoints is a query transport, not a write.
export const datadogOperations: Operation<DatadogHandle>[] = [
  ddOp({ name: "datadog.metrics.query", summary: "timeseries query", scopes: [], args: Type.Object({ query: Type.String({ minLength: 1 }), from: epoch, to: epoch }, { additionalProperties: false }), example: { query: "avg:system.cpu.user{service:api}", from: 1795791600, to: 1795795200 }, request: (a) => ({ path: "/api/v1/query", query: a }) }),
  ddOp({ name: "datadog.logs.search", summary: "log events matching a query", scopes: ["logs_read_data", "logs_read_index_data"], args: search, example: { query: "service:api status:error", from: "now-1h" }, request: (a) => ({ path: "/api/v2/logs/events/search", method: "POST", json: searchBody(a) }) }),
  ddOp({ name: "datadog.traces.search", summary: "spans matching a query", scopes: ["apm_read"], args: search, example: { query: "service:api @http.status_code:500", from: "now-1h" }, request: (a) => ({ path: "/api/v2/spans/events/search", method: "POST", json: { data: { type: "search_request", attributes: searchBody(a) } } }) }),
  ddOp({ name: "datadog.topology.serviceDependencies", summary: "APM service dependency map", scopes: ["apm_read"], args: Type.Object({ env: Type.String({ minLength: 1 }), start: Type.Optional(epoch), end: Type.Optional(epoch) }, { additionalProperties: false }), example: { env: "prod" }, request: (a) => ({ path: "/api/v1/service_dependencies", query: a }) }),
  ddOp({ name: "datadog.monitors.list", summary: "monitors and their state", scopes: ["monitors_read"], args: Type.Object({ tags: Type.Optional(Type.String()), page: Type.Optional(Type.Integer({ minimum: 0 })), page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }, { additionalProperties: false }), example: { page_size: 50 }, request: (a) => ({ path: "/api/v1/monitor", query: a }) }),
  ddOp({ name: "datadog.incidents.list", summary: "incidents", scopes: ["incident_read"], args: Type.Object({ "page[size]": Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }, { additionalProperties: false }), example: {}, request: (a) => ({ path: "/api/v2/incidents", query: a }) }),
  ddOp({ name: "datadog.rum.search", summary: "RUM events matching a query", scopes: ["rum_apps_read"], args: search, example: { query: "@type:error", from: "now-1h" }, request: (a) => ({ path: "/api/v2/rum/events/search", method: "POST", json: searchBody(a) }) }),
  ddOp({ name: "datadog.synthetics.list", summary: "synthetic tests", scopes: ["synthetics_read"], args: none, example: {}, request: () => ({ path: "/api/v1/synthetics/tests" }) }),
  ddOp({ name: "datadog.security.apiKeys", summary: "API key hygiene: names, ages, last4 (optional, sensitive scope)", scopes: ["api_keys_read"], args: none, example: {}, request: () => ({ path: "/api/v2/api_keys" }) }),
];

export const datadogConnector: Connector<DatadogHandle> = {
  name: "datadog",
  unconfigured: (ctx) => (ctx.env.RUNNER_DATADOG_SITE || ctx.env.DATADOG_API_KEY ? null : "neither RUNNER_DATADOG_SITE nor DATADOG_API_KEY is set"),
  async open(ctx: AgentContext) {
    const apiKey = await requireSecret(ctx, "DATADOG_API_KEY");
    const site = ctx.env.RUNNER_DATADOG_SITE || "datadoghq.com";
    return { site, template: ctx.env.RUNNER_DATADOG_URL_TEMPLATE || "https://api.{site}", apiKey, appKey: await ctx.secrets.get("DATADOG_APP_KEY") };
  },
  async health(h) {
    // The site before anything else: a valid key on the wrong site answers 403 everywhere.
    const site = await siteProblem(h);
    if (site) throw site;
    if (!h.appKey) {
      throw new AgentError("not_configured", `API key valid on ${h.site}, but DATADOG_APP_KEY is not set: every operation needs an application key, and its scope monitors_read is required always`, {
        missing: ["monitors_read"],
        fix: "create an application key with scope monitors_read (and the scopes of the operations used) and set DATADOG_APP_KEY",
      });
    }
    // monitors_read is the one always-required scope; this read carries both keys, as operations do.
    await call(h, "datadog.monitors.list", ["monitors_read"], "/api/v1/monitor", { query: { page_size: 1 } }, true);
    return { status: "ok", detail: `API key valid on ${h.site}; application key reads monitors` };
  },
  operations: datadogOperations,
};
