import { type TSchema, Type } from "@sinclair/typebox";
import { type Connector, op, type Operation } from "../catalog.ts";
import type { AgentContext, Env } from "../context.ts";
import { AgentError } from "../errors.ts";
import { type GcpIdentity, GCP_CRED_MODES, gcpIdentity } from "./gcp/auth.ts";
import { httpJson, urlOf } from "./http.ts";
import { obj, optStr, str } from "./rest-op.ts";

// Google Cloud (cloud B): project roles from policies/gcp/runner-roles.json, each operation
// naming the one role it needs. RUNNER_GCP_PROJECT is the project; the cost operation reads the
// billing export table named by RUNNER_GCP_BILLING_EXPORT_TABLE and fails explicitly without it.
// RUNNER_GCP_URL_TEMPLATE (default https://{service}.googleapis.com) for private endpoints/tests.

export const BILLING_TABLE_ENV = "RUNNER_GCP_BILLING_EXPORT_TABLE";

export interface GcpHandle {
  env: Env;
  project: string;
  identity: GcpIdentity;
}

const base = (h: GcpHandle, service: string) => (h.env.RUNNER_GCP_URL_TEMPLATE || "https://{service}.googleapis.com").replace("{service}", service);

async function call(h: GcpHandle, opName: string, roles: string[], service: string, path: string, init: { method?: "GET" | "POST"; query?: Record<string, string | number | undefined>; json?: unknown } = {}) {
  const res = await httpJson(urlOf(base(h, service), path, init.query), { method: init.method, json: init.json, headers: { authorization: `Bearer ${h.identity.token}` } });
  if (res.status >= 200 && res.status < 300) return res.body;
  if (res.status === 403) {
    const where = roles.includes("roles/billing.viewer") ? "on the billing account (not the project)" : `on project ${h.project}`;
    throw new AgentError("permission", `${opName} was refused (403): grant ${roles.join(" + ")} to ${h.identity.email} ${where}`, { missing: roles, fix: `grant ${roles.join(" + ")} to ${h.identity.email} ${where}` });
  }
  if (res.status === 401) throw new AgentError("permission", `${opName} was refused (401): GCP does not accept the credential of ${h.identity.email}`);
  const msg: string | undefined = res.body?.error?.message;
  throw new AgentError("upstream", `${opName} failed: ${service} answered ${res.status}${msg ? `: ${msg}` : ""}`);
}

interface Spec {
  name: string;
  summary: string;
  roles: string[];
  args: TSchema;
  example: any;
  request: (a: any, h: GcpHandle) => { service: string; path: string; method?: "GET" | "POST"; query?: Record<string, string | number | undefined>; json?: unknown };
}

function gcpOp(s: Spec): Operation<GcpHandle> {
  return op<GcpHandle, TSchema>({
    name: s.name,
    connector: "gcp",
    access: "read",
    summary: s.summary,
    permission: { system: "gcp-role", needs: s.roles },
    args: s.args,
    example: s.example,
    run: (h, a) => {
      const r = s.request(a, h);
      return call(h, s.name, s.roles, r.service, r.path, r);
    },
  });
}

const pageSize = Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 }));
const rfc3339 = Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T" });
const TABLE = /^[a-z][a-z0-9-]{4,28}[a-z0-9]\.[A-Za-z0-9_]{1,1024}\.[A-Za-z0-9_$-]{1,1024}$/;
const COST_GROUPS = { service: "service.description", sku: "sku.description", project: "project.id" } as const;

export const gcpOperations: Operation<GcpHandle>[] = [
  gcpOp({
    name: "gcp.cost.query",
    summary: "cost per service, SKU or project over the last N days, from the billing export table",
    roles: ["roles/bigquery.dataViewer", "roles/bigquery.jobUser"],
    args: obj({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 400 })), groupBy: Type.Optional(Type.Union([Type.Literal("service"), Type.Literal("sku"), Type.Literal("project")])) }),
    example: { days: 30, groupBy: "service" },
    request: (a, h) => {
      const table = h.env[BILLING_TABLE_ENV];
      if (!table) throw new AgentError("not_configured", `gcp.cost.query needs ${BILLING_TABLE_ENV} (project.dataset.table of the Cloud Billing export to BigQuery); without it there is no cost data to read`);
      if (!TABLE.test(table)) throw new AgentError("not_configured", `${BILLING_TABLE_ENV} must be project.dataset.table`);
      const column = COST_GROUPS[(a.groupBy ?? "service") as keyof typeof COST_GROUPS];
      return {
        service: "bigquery",
        path: `/bigquery/v2/projects/${h.project}/queries`,
        method: "POST", // jobs.query: a read-only SELECT, the POST is its transport
        json: {
          query: `SELECT ${column} AS name, SUM(cost) AS cost, ANY_VALUE(currency) AS currency FROM \`${table}\` WHERE usage_start_time >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL @days DAY) GROUP BY name ORDER BY cost DESC LIMIT 100`,
          useLegacySql: false,
          parameterMode: "NAMED",
          queryParameters: [{ name: "days", parameterType: { type: "INT64" }, parameterValue: { value: String(a.days ?? 30) } }],
          timeoutMs: 30_000,
        },
      };
    },
  }),
  gcpOp({ name: "gcp.billing.account", summary: "the billing account (granted on the billing account)", roles: ["roles/billing.viewer"], args: obj({ billingAccount: Type.String({ pattern: "^[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}$" }) }), example: { billingAccount: "012345-6789AB-CDEF01" }, request: (a) => ({ service: "cloudbilling", path: `/v1/billingAccounts/${a.billingAccount}` }) }),
  gcpOp({ name: "gcp.metrics.query", summary: "Cloud Monitoring time series", roles: ["roles/monitoring.viewer"], args: obj({ filter: str, startTime: rfc3339, endTime: rfc3339, pageSize }), example: { filter: 'metric.type="run.googleapis.com/request_count"', startTime: "2026-11-21T15:00:00Z", endTime: "2026-11-21T16:00:00Z" }, request: (a, h) => ({ service: "monitoring", path: `/v3/projects/${h.project}/timeSeries`, query: { filter: a.filter, "interval.startTime": a.startTime, "interval.endTime": a.endTime, pageSize: a.pageSize } }) }),
  gcpOp({ name: "gcp.logs.query", summary: "Cloud Logging entries", roles: ["roles/logging.viewer"], args: obj({ filter: str, pageSize, orderBy: Type.Optional(Type.Union([Type.Literal("timestamp desc"), Type.Literal("timestamp asc")])) }), example: { filter: "severity>=ERROR" }, request: (a, h) => ({ service: "logging", path: "/v2/entries:list", method: "POST", json: { resourceNames: [`projects/${h.project}`], filter: a.filter, orderBy: a.orderBy ?? "timestamp desc", pageSize: a.pageSize ?? 100 } }) }),
  gcpOp({ name: "gcp.assets.search", summary: "asset inventory search", roles: ["roles/cloudasset.viewer"], args: obj({ query: optStr, assetTypes: optStr, pageSize }), example: { assetTypes: "run.googleapis.com/Service" }, request: (a, h) => ({ service: "cloudasset", path: `/v1/projects/${h.project}:searchAllResources`, query: a }) }),
  gcpOp({ name: "gcp.recommendations.list", summary: "recommendations of one recommender", roles: ["roles/recommender.viewer"], args: obj({ location: str, recommender: str }), example: { location: "global", recommender: "google.iam.policy.Recommender" }, request: (a, h) => ({ service: "recommender", path: `/v1/projects/${h.project}/locations/${a.location}/recommenders/${a.recommender}/recommendations` }) }),
  gcpOp({ name: "gcp.security.findings", summary: "Security Command Center findings", roles: ["roles/securitycenter.findingsViewer"], args: obj({ filter: optStr, pageSize }), example: { filter: 'state="ACTIVE"' }, request: (a, h) => ({ service: "securitycenter", path: `/v1/projects/${h.project}/sources/-/findings`, query: a }) }),
  gcpOp({ name: "gcp.iam.policy", summary: "the project's IAM policy", roles: ["roles/iam.securityReviewer"], args: obj({}), example: {}, request: (_a, h) => ({ service: "cloudresourcemanager", path: `/v1/projects/${h.project}:getIamPolicy`, method: "POST", json: {} }) }),
  gcpOp({ name: "gcp.compute.instances", summary: "Compute Engine instances in every zone", roles: ["roles/viewer"], args: obj({ filter: optStr }), example: {}, request: (a, h) => ({ service: "compute", path: `/compute/v1/projects/${h.project}/aggregated/instances`, query: a }) }),
  gcpOp({ name: "gcp.gke.clusters", summary: "GKE clusters", roles: ["roles/viewer"], args: obj({}), example: {}, request: (_a, h) => ({ service: "container", path: `/v1/projects/${h.project}/locations/-/clusters` }) }),
  gcpOp({ name: "gcp.run.services", summary: "Cloud Run services of a region", roles: ["roles/viewer"], args: obj({ location: str }), example: { location: "europe-west1" }, request: (a, h) => ({ service: "run", path: `/v2/projects/${h.project}/locations/${a.location}/services` }) }),
];

export const gcpConnector: Connector<GcpHandle> = {
  name: "gcp",
  unconfigured: (ctx) => (ctx.env.RUNNER_GCP_CRED_MODE ? (ctx.env.RUNNER_GCP_PROJECT ? null : "RUNNER_GCP_PROJECT is not set") : `RUNNER_GCP_CRED_MODE is not set (${GCP_CRED_MODES.join(" or ")})`),
  async open(ctx: AgentContext) {
    return { env: ctx.env, project: ctx.env.RUNNER_GCP_PROJECT!, identity: await gcpIdentity(ctx) };
  },
  async health(h) {
    await call(h, "gcp health", ["roles/viewer"], "cloudresourcemanager", `/v1/projects/${h.project}`);
    const cost = h.env[BILLING_TABLE_ENV] ? "cost from the billing export" : `${BILLING_TABLE_ENV} unset: gcp.cost.query will fail`;
    return { status: "ok", detail: `project ${h.project} as ${h.identity.email}; ${cost}` };
  },
  operations: gcpOperations,
};
