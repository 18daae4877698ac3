import { Type } from "@sinclair/typebox";
import type { Connector } from "../catalog.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { assertQueryOnly } from "./graphql-guard.ts";
import { httpJson, type HttpResult, urlOf } from "./http.ts";
import { limit, obj, optStr, type RestRequest, type RestSpec, restOperations } from "./rest-op.ts";

// Azion (edge application platform): AZION_TOKEN (personal token, `Authorization: Token …`) with
// read access to workspace resources (applications, connectors, workloads) and to the metrics and
// events GraphQL APIs. Their POSTs are GraphQL query transport: every document is parsed and a
// mutation (or subscription) is refused before it is sent. RUNNER_AZION_URL (default
// https://api.azion.com) for proxies and tests.

const WORKSPACE = (what: string) => `read: workspace ${what}`;
const METRICS = "read: Metrics GraphQL API";
const EVENTS = "read: Events GraphQL API";

export interface AzionHandle {
  base: string;
  token: string;
}

const page = { page: Type.Optional(Type.Integer({ minimum: 1 })), page_size: limit(100), search: optStr };
const gql = obj({ query: Type.String({ minLength: 1, maxLength: 20000 }), variables: Type.Optional(Type.Record(Type.String(), Type.Unknown())), operationName: optStr });
const list = (what: string): RestSpec => ({ name: `azion.${what}.list`, summary: `workspace ${what}`, needs: [WORKSPACE(what)], args: obj(page), example: { page_size: 20 }, request: (a) => ({ path: `/v4/workspace/${what}`, query: a }) });

const specs: RestSpec[] = [
  list("applications"),
  list("connectors"),
  list("workloads"),
  { name: "azion.metrics.query", summary: "Metrics GraphQL query (queries only; mutations refused)", needs: [METRICS], args: gql, example: { query: 'query { httpMetrics(limit: 10, filter: { tsRange: { begin: "2026-11-21T00:00:00", end: "2026-11-21T01:00:00" } }, aggregate: { count: requests }, groupBy: [ts]) { ts count } }' }, request: (a) => ({ method: "POST", path: "/v4/metrics/graphql", json: a }) },
  { name: "azion.events.query", summary: "Events GraphQL query (queries only; mutations refused)", needs: [EVENTS], args: gql, example: { query: 'query { httpEvents(limit: 10, filter: { tsRange: { begin: "2026-11-21T00:00:00", end: "2026-11-21T01:00:00" } }, orderBy: [ts_DESC]) { ts status requestUri } }' }, request: (a) => ({ method: "POST", path: "/v4/events/graphql", json: a }) },
];

async function send(h: AzionHandle, req: RestRequest): Promise<HttpResult> {
  return httpJson(urlOf(h.base, req.path, req.query), { method: req.method, json: req.json, headers: { authorization: `Token ${h.token}` } });
}

function refusal(opName: string, needs: string[], res: HttpResult): AgentError {
  if (res.status === 401) return new AgentError("permission", `${opName} was refused (401): AZION_TOKEN is invalid or expired`, { fix: "create a new personal token" });
  if (res.status === 403) return new AgentError("permission", `${opName} was refused (403): the token lacks ${needs.join(", ")}`, { missing: needs, fix: `give the token's account ${needs.join(", ")} (Azion Console → Teams/permissions)` });
  return new AgentError("upstream", `${opName} failed: Azion answered ${res.status}`);
}

async function call(h: AzionHandle, s: RestSpec, req: RestRequest): Promise<unknown> {
  if (req.method === "POST") await assertQueryOnly(s.name, String((req.json as { query: string }).query));
  const res = await send(h, req);
  if (res.status !== 200) throw refusal(s.name, s.needs, res);
  if (req.method === "POST" && res.body?.errors?.length && !res.body?.data) {
    throw new AgentError("upstream", `${s.name}: GraphQL errors: ${res.body.errors.map((e: { message?: string }) => e.message).join("; ")}`);
  }
  return res.body;
}

const PROBES: [string, RestRequest][] = [
  [WORKSPACE("applications"), { path: "/v4/workspace/applications", query: { page_size: 1 } }],
  [WORKSPACE("connectors"), { path: "/v4/workspace/connectors", query: { page_size: 1 } }],
  [WORKSPACE("workloads"), { path: "/v4/workspace/workloads", query: { page_size: 1 } }],
  [METRICS, { method: "POST", path: "/v4/metrics/graphql", json: { query: "query { __typename }" } }],
  [EVENTS, { method: "POST", path: "/v4/events/graphql", json: { query: "query { __typename }" } }],
];

export const azionConnector: Connector<AzionHandle> = {
  name: "azion",
  unconfigured: (ctx) => (ctx.env.AZION_TOKEN || ctx.env.RUNNER_AZION_URL ? null : "neither AZION_TOKEN nor RUNNER_AZION_URL is set"),
  async open(ctx) {
    const token = await requireSecret(ctx, "AZION_TOKEN");
    return { base: ctx.env.RUNNER_AZION_URL || "https://api.azion.com", token };
  },
  async health(h) {
    const results = await Promise.all(PROBES.map(async ([need, req]) => [need, await send(h, req)] as const));
    const unauth = results.find(([, r]) => r.status === 401);
    if (unauth) throw refusal("azion health", [], unauth[1]);
    const missing = results.filter(([, r]) => r.status === 403).map(([n]) => n);
    if (missing.length) throw new AgentError("permission", `the token lacks ${missing.join(", ")}`, { missing, fix: `give the token's account ${missing.join(", ")}` });
    const other = results.find(([, r]) => r.status !== 200);
    if (other) throw new AgentError("upstream", `azion health: ${other[0]} answered ${other[1].status}`);
    return { status: "ok", detail: "reads applications, connectors, workloads, metrics and events" };
  },
  operations: restOperations<AzionHandle>("azion", "platform", call, specs),
};
