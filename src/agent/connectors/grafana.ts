import { type TSchema, Type } from "@sinclair/typebox";
import { type Connector, op, type Operation } from "../catalog.ts";
import type { AgentContext, Env } from "../context.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { httpJson, type HttpResult, urlOf } from "./http.ts";
import { obj, optStr, str } from "./rest-op.ts";

// Grafana Cloud stack (observability stack B), one access-policy token (GRAFANA_CLOUD_TOKEN).
// Only metrics:read is required. Every other scope is optional: when it is missing, or its
// backend is not configured, the operations that need it fail with an error naming what to add,
// and nothing else is affected — the connector still boots and its health is ok.
//
// Backends (URL, and the instance id used as basic-auth user where Grafana Cloud wants one):
//   metrics   RUNNER_GRAFANA_PROMETHEUS_URL (+ _USER)   required; also alerting rules (ruler)
//   logs      RUNNER_GRAFANA_LOKI_URL (+ _USER)
//   traces    RUNNER_GRAFANA_TEMPO_URL (+ _USER)
//   stack     RUNNER_GRAFANA_STACK_URL                   dashboard search
//   synthetics RUNNER_GRAFANA_SM_URL                     synthetic monitoring API

type Backend = "metrics" | "logs" | "traces" | "stack" | "synthetics";

const BACKEND_ENV: Record<Backend, string> = {
  metrics: "RUNNER_GRAFANA_PROMETHEUS_URL",
  logs: "RUNNER_GRAFANA_LOKI_URL",
  traces: "RUNNER_GRAFANA_TEMPO_URL",
  stack: "RUNNER_GRAFANA_STACK_URL",
  synthetics: "RUNNER_GRAFANA_SM_URL",
};
const USER_ENV: Partial<Record<Backend, string>> = {
  metrics: "RUNNER_GRAFANA_PROMETHEUS_USER",
  logs: "RUNNER_GRAFANA_LOKI_USER",
  traces: "RUNNER_GRAFANA_TEMPO_USER",
};

export interface GrafanaHandle {
  env: Env;
  token: string;
}

function authFor(h: GrafanaHandle, backend: Backend): string {
  const user = USER_ENV[backend] ? h.env[USER_ENV[backend]!] : undefined;
  return user ? `Basic ${Buffer.from(`${user}:${h.token}`).toString("base64")}` : `Bearer ${h.token}`;
}

interface Spec {
  name: string;
  summary: string;
  backend: Backend;
  scopes: string[];
  args: TSchema;
  example: any;
  request: (a: any) => { path: string; query?: Record<string, string | number | undefined> };
}

/** metrics:read on the metrics backend is the one scope every token must have; the rest are optional. */
function isRequiredScope(s: Pick<Spec, "backend" | "scopes">): boolean {
  return s.backend === "metrics" && s.scopes.includes("metrics:read");
}

/** The backend's URL, or the configuration error naming the variable to set. */
function backendBase(env: Env, s: Pick<Spec, "name" | "backend" | "scopes">): string {
  const base = env[BACKEND_ENV[s.backend]];
  if (base) return base;
  const required = isRequiredScope(s);
  throw new AgentError("not_configured", `${s.name} needs ${BACKEND_ENV[s.backend]} (the stack's ${s.backend} endpoint)${required ? "" : "; other operations are unaffected"}`);
}

async function call(h: GrafanaHandle, s: Pick<Spec, "name" | "backend" | "scopes">, path: string, query?: Record<string, string | number | undefined>) {
  const base = backendBase(h.env, s);
  const required = isRequiredScope(s);
  const res = await httpJson(urlOf(base, path, query), { headers: { authorization: authFor(h, s.backend) } });
  if (res.status >= 200 && res.status < 300) return res.body;
  if (res.status === 401 && !scopeRefusal(res)) {
    // The token itself was refused: no scope would help, and blaming one would send the user to
    // edit an access policy whose token no longer exists.
    throw new AgentError(
      "permission",
      `${s.name} was refused (401${said(res)}): GRAFANA_CLOUD_TOKEN is invalid, expired or revoked${USER_ENV[s.backend] && h.env[USER_ENV[s.backend]!] ? `, or ${USER_ENV[s.backend]} is not this stack's instance id` : ""}; create a new token for the access policy (scopes are not the problem)`,
      { fix: "create a new access policy token and set GRAFANA_CLOUD_TOKEN" },
    );
  }
  if (res.status === 401 || res.status === 403) {
    throw new AgentError(
      "permission",
      required
        ? `${s.name} was refused (${res.status}): the access policy token lacks metrics:read, the one required scope; add it to the access policy`
        : `${s.name} was refused (${res.status}): the access policy lacks the optional scope ${s.scopes.join(" + ")}. Add it to the access policy to use ${s.name}; everything else keeps working`,
      { missing: required ? ["metrics:read"] : s.scopes, fix: `add ${required ? "metrics:read" : s.scopes.join(" + ")} to the access policy` },
    );
  }
  throw new AgentError("upstream", `${s.name} failed: ${s.backend} answered ${res.status}`);
}

/** Grafana Cloud answers 401 both for a bad token ("invalid token") and for a missing scope
 * ("invalid scope requested"); only the body tells them apart. A 403 is always authorization. */
function scopeRefusal(res: HttpResult): boolean {
  return /scope/i.test(errorText(res));
}

function errorText(res: HttpResult): string {
  const e = res.body?.error ?? res.body?.message;
  return typeof e === "string" ? e : res.text.slice(0, 200);
}

const said = (res: HttpResult) => (errorText(res) ? `, "${errorText(res).trim()}"` : "");

function gOp(s: Spec): Operation<GrafanaHandle> {
  return op<GrafanaHandle, TSchema>({
    name: s.name,
    connector: "grafana",
    access: "read",
    summary: s.summary,
    permission: { system: "grafana-scope", needs: s.scopes },
    args: s.args,
    example: s.example,
    // An unconfigured backend is reported before the token is fetched.
    preflight: (_a, ctx) => void backendBase(ctx.env, s),
    run: (h, a) => {
      const r = s.request(a);
      return call(h, s, r.path, r.query);
    },
  });
}

const epoch = Type.Integer({ minimum: 0 });
const SM_SCOPE = "synthetic-monitoring access (scope name to be confirmed)";

export const grafanaOperations: Operation<GrafanaHandle>[] = [
  gOp({ name: "grafana.metrics.query", summary: "PromQL instant query", backend: "metrics", scopes: ["metrics:read"], args: obj({ query: str, time: Type.Optional(epoch) }), example: { query: "sum(rate(http_requests_total[5m]))" }, request: (a) => ({ path: "/api/v1/query", query: a }) }),
  gOp({ name: "grafana.metrics.queryRange", summary: "PromQL range query", backend: "metrics", scopes: ["metrics:read"], args: obj({ query: str, start: epoch, end: epoch, step: Type.Integer({ minimum: 1 }) }), example: { query: "sum(rate(http_requests_total[5m]))", start: 1795791600, end: 1795795200, step: 60 }, request: (a) => ({ path: "/api/v1/query_range", query: a }) }),
  gOp({ name: "grafana.metrics.serviceGraph", summary: "service graph edges (request rate between services)", backend: "metrics", scopes: ["metrics:read"], args: obj({ window: Type.Optional(Type.String({ pattern: "^\\d+[smh]$" })) }), example: {}, request: (a) => ({ path: "/api/v1/query", query: { query: `sum by (client, server) (rate(traces_service_graph_request_total[${a.window ?? "5m"}]))` } }) }),
  gOp({ name: "grafana.logs.query", summary: "LogQL range query", backend: "logs", scopes: ["logs:read"], args: obj({ query: str, start: optStr, end: optStr, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })) }), example: { query: '{service="api"} |= "error"' }, request: (a) => ({ path: "/loki/api/v1/query_range", query: a }) }),
  gOp({ name: "grafana.traces.search", summary: "TraceQL search", backend: "traces", scopes: ["traces:read"], args: obj({ q: str, start: Type.Optional(epoch), end: Type.Optional(epoch), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }), example: { q: '{ resource.service.name = "api" && status = error }' }, request: (a) => ({ path: "/api/search", query: a }) }),
  gOp({ name: "grafana.traces.get", summary: "one trace by id", backend: "traces", scopes: ["traces:read"], args: obj({ traceId: Type.String({ pattern: "^[0-9a-fA-F]{16,32}$" }) }), example: { traceId: "0af7651916cd43dd8448eb211c80319c" }, request: (a) => ({ path: `/api/traces/${a.traceId}` }) }),
  gOp({ name: "grafana.monitors.rules", summary: "alerting and recording rules with their state", backend: "metrics", scopes: ["alerts:read", "rules:read"], args: obj({}), example: {}, request: () => ({ path: "/api/v1/rules" }) }),
  gOp({ name: "grafana.monitors.alerts", summary: "alerts firing now", backend: "metrics", scopes: ["alerts:read", "rules:read"], args: obj({}), example: {}, request: () => ({ path: "/api/v1/alerts" }) }),
  gOp({ name: "grafana.dashboards.search", summary: "dashboard search in the stack", backend: "stack", scopes: ["stacks:read", "stack-dashboards:read"], args: obj({ query: optStr, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })) }), example: { query: "api" }, request: (a) => ({ path: "/api/search", query: { type: "dash-db", ...a } }) }),
  gOp({ name: "grafana.synthetics.checks", summary: "synthetic monitoring checks", backend: "synthetics", scopes: [SM_SCOPE], args: obj({}), example: {}, request: () => ({ path: "/api/v1/check/list" }) }),
];

// One cheap read per optional capability, to tell in health what works and what to add.
const PROBES: { what: string; op: string; backend: Backend; scopes: string[]; path: string }[] = [
  { what: "logs", op: "grafana.logs.*", backend: "logs", scopes: ["logs:read"], path: "/loki/api/v1/labels" },
  { what: "traces", op: "grafana.traces.*", backend: "traces", scopes: ["traces:read"], path: "/api/search/tags" },
  { what: "alerting", op: "grafana.monitors.*", backend: "metrics", scopes: ["alerts:read", "rules:read"], path: "/api/v1/rules" },
  { what: "dashboards", op: "grafana.dashboards.*", backend: "stack", scopes: ["stacks:read", "stack-dashboards:read"], path: "/api/search" },
  { what: "synthetics", op: "grafana.synthetics.*", backend: "synthetics", scopes: [SM_SCOPE], path: "/api/v1/check/list" },
];

export const grafanaConnector: Connector<GrafanaHandle> = {
  name: "grafana",
  unconfigured: (ctx) => (ctx.env.RUNNER_GRAFANA_PROMETHEUS_URL ? null : "RUNNER_GRAFANA_PROMETHEUS_URL is not set"),
  async open(ctx: AgentContext) {
    const token = await requireSecret(ctx, "GRAFANA_CLOUD_TOKEN", "an access policy token with metrics:read");
    return { env: ctx.env, token };
  },
  async health(h) {
    // The only check that can fail health: metrics:read.
    await call(h, { name: "grafana health (metrics)", backend: "metrics", scopes: ["metrics:read"] }, "/api/v1/query", { query: "vector(1)" });
    const notes = await Promise.all(
      PROBES.map(async (p) => {
        if (!h.env[BACKEND_ENV[p.backend]]) return `${p.what}: not configured (${BACKEND_ENV[p.backend]})`;
        try {
          await call(h, { name: p.op, backend: p.backend, scopes: p.scopes }, p.path);
          return `${p.what}: ok`;
        } catch (e) {
          if (e instanceof AgentError && e.code === "permission" && e.missing?.length) return `${p.what}: missing ${p.scopes.join(" + ")} (${p.op} will fail)`;
          return `${p.what}: unavailable (${e instanceof Error ? e.message : String(e)})`;
        }
      }),
    );
    // Missing optional scopes are listed for the health table; they never fail health.
    const optional = PROBES.filter((p) => notes.some((n) => n.startsWith(`${p.what}: missing`))).flatMap((p) => p.scopes);
    if (!optional.length) return { status: "ok", detail: `metrics:read ok; ${notes.join("; ")}` };
    return { status: "ok", detail: `metrics:read ok; ${notes.join("; ")}`, missing: optional.map((s) => `${s} (optional)`), fix: `optional: add ${optional.join(", ")} to the access policy` };
  },
  operations: grafanaOperations,
};
