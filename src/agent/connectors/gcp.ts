import { type TSchema, Type } from "@sinclair/typebox";
import { type Connector, op, type Operation } from "../catalog.ts";
import type { AgentContext, Env } from "../context.ts";
import { AgentError } from "../errors.ts";
import { type GcpIdentity, GCP_CRED_MODES, type GcpScope, gcpIdentity, SCOPES } from "./gcp/auth.ts";
import { httpJson, urlOf } from "./http.ts";
import { obj, optStr, seg, str } from "./rest-op.ts";

// Google Cloud (cloud B): project roles from policies/gcp/runner-roles.json, each operation
// naming the one role it needs. roles/viewer is used for the nine services the reference says it
// enables, one list read each, all over REST with the token from gcp/auth.ts (no client
// libraries: a GET per service does not need them): compute, managed Kubernetes (container),
// managed SQL (sqladmin), serverless run (run), functions (cloudfunctions), DNS (dns), artifact
// registry (artifactregistry), document store (firestore), cache (redis). RUNNER_GCP_PROJECT is
// the project; the cost operation reads the billing export table named by
// RUNNER_GCP_BILLING_EXPORT_TABLE and fails explicitly without it.
// RUNNER_GCP_URL_TEMPLATE (default https://{service}.googleapis.com) for private endpoints/tests.

export const BILLING_TABLE_ENV = "RUNNER_GCP_BILLING_EXPORT_TABLE";

export interface GcpHandle {
  env: Env;
  project: string;
  identity: GcpIdentity;
}

const base = (h: GcpHandle, service: string) => (h.env.RUNNER_GCP_URL_TEMPLATE || "https://{service}.googleapis.com").replace("{service}", service);

async function call(h: GcpHandle, opName: string, roles: string[], scope: GcpScope, service: string, path: string, init: { method?: "GET" | "POST"; query?: Record<string, string | number | undefined>; json?: unknown } = {}) {
  const token = await h.identity.token(scope);
  const res = await httpJson(urlOf(base(h, service), path, init.query), { method: init.method, json: init.json, headers: { authorization: `Bearer ${token}` } });
  if (res.status >= 200 && res.status < 300) return res.body;
  if (res.status === 403 && scopeInsufficient(res)) {
    // Not a role: the access token's OAuth scope. In chain mode on a Compute Engine VM the VM's
    // access scopes cap every token; elsewhere the scope is the one the Agent asked for.
    const vm = h.identity.mode === "chain" ? `; in chain mode on a Compute Engine VM, allow ${scope} (or cloud-platform) in the VM's access scopes` : "";
    throw new AgentError("permission", `${opName} was refused (403, ACCESS_TOKEN_SCOPE_INSUFFICIENT): ${service} does not accept a token with scope ${scope}${vm}. Roles are not the problem`, { missing: [scope], fix: `let the token carry ${scope}` });
  }
  if (res.status === 403) {
    const where = roles.includes("roles/billing.viewer") ? "on the billing account (not the project)" : `on project ${h.project}`;
    throw new AgentError("permission", `${opName} was refused (403): grant ${roles.join(" + ")} to ${h.identity.email} ${where}`, { missing: roles, fix: `grant ${roles.join(" + ")} to ${h.identity.email} ${where}` });
  }
  if (res.status === 401) throw new AgentError("permission", `${opName} was refused (401): GCP does not accept the credential of ${h.identity.email}`);
  const msg: string | undefined = res.body?.error?.message;
  throw new AgentError("upstream", `${opName} failed: ${service} answered ${res.status}${msg ? `: ${msg}` : ""}`);
}

/** Google's answer to a token whose OAuth scope the method does not accept. */
function scopeInsufficient(res: { body: any }): boolean {
  const details: { reason?: string }[] = res.body?.error?.details ?? [];
  return details.some((d) => d.reason === "ACCESS_TOKEN_SCOPE_INSUFFICIENT") || /insufficient authentication scopes/i.test(res.body?.error?.message ?? "");
}

interface Spec {
  name: string;
  summary: string;
  roles: string[];
  /** The OAuth scope the token carries for this method: the narrowest Google documents for it. */
  scope: GcpScope;
  args: TSchema;
  example: any;
  preflight?: (a: any, ctx: AgentContext) => void;
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
    ...(s.preflight ? { preflight: s.preflight } : {}),
    run: (h, a) => {
      const r = s.request(a, h);
      return call(h, s.name, s.roles, s.scope, r.service, r.path, r);
    },
  });
}

// A region such as europe-west1; "-" is Google's wildcard for every region where the API has one.
const region = Type.String({ pattern: "^[a-z]+-[a-z]+[0-9]+$" });
const regionOrAll = Type.String({ pattern: "^([a-z]+-[a-z]+[0-9]+|-)$" });
// Artifact Registry also has the multi-regions us, europe and asia.
const artifactLocation = Type.String({ pattern: "^([a-z]+-[a-z]+[0-9]+|us|europe|asia)$" });
const pageSize = Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 }));
const rfc3339 = Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T" });
const TABLE = /^[a-z][a-z0-9-]{4,28}[a-z0-9]\.[A-Za-z0-9_]{1,1024}\.[A-Za-z0-9_$-]{1,1024}$/;
/** The billing export table, or the configuration error that explains what to set. */
function billingTable(env: Env): string {
  const table = env[BILLING_TABLE_ENV];
  if (!table) throw new AgentError("not_configured", `gcp.cost.query needs ${BILLING_TABLE_ENV} (project.dataset.table of the Cloud Billing export to BigQuery); without it there is no cost data to read`);
  if (!TABLE.test(table)) throw new AgentError("not_configured", `${BILLING_TABLE_ENV} must be project.dataset.table`);
  return table;
}

const COST_GROUPS = { service: "service.description", sku: "sku.description", project: "project.id" } as const;

export const gcpOperations: Operation<GcpHandle>[] = [
  gcpOp({
    name: "gcp.cost.query",
    summary: "cost per service, SKU or project over the last N days, from the billing export table",
    roles: ["roles/bigquery.dataViewer", "roles/bigquery.jobUser"], scope: SCOPES.readOnly,
    args: obj({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 400 })), groupBy: Type.Optional(Type.Union([Type.Literal("service"), Type.Literal("sku"), Type.Literal("project")])) }),
    example: { days: 30, groupBy: "service" },
    // A configuration error, reported before any credential is fetched (enforcement runs
    // preflight before open), so a broken key cannot hide it.
    preflight: (_a, ctx) => billingTable(ctx.env),
    request: (a, h) => {
      const table = billingTable(h.env);
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
  gcpOp({ name: "gcp.billing.account", summary: "the billing account (granted on the billing account)", roles: ["roles/billing.viewer"], scope: SCOPES.billingReadonly, args: obj({ billingAccount: Type.String({ pattern: "^[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}$" }) }), example: { billingAccount: "012345-6789AB-CDEF01" }, request: (a) => ({ service: "cloudbilling", path: `/v1/billingAccounts/${a.billingAccount}` }) }),
  gcpOp({ name: "gcp.metrics.query", summary: "Cloud Monitoring time series", roles: ["roles/monitoring.viewer"], scope: SCOPES.monitoringRead, args: obj({ filter: str, startTime: rfc3339, endTime: rfc3339, pageSize }), example: { filter: 'metric.type="run.googleapis.com/request_count"', startTime: "2026-11-21T15:00:00Z", endTime: "2026-11-21T16:00:00Z" }, request: (a, h) => ({ service: "monitoring", path: `/v3/projects/${h.project}/timeSeries`, query: { filter: a.filter, "interval.startTime": a.startTime, "interval.endTime": a.endTime, pageSize: a.pageSize } }) }),
  gcpOp({ name: "gcp.logs.query", summary: "Cloud Logging entries", roles: ["roles/logging.viewer"], scope: SCOPES.loggingRead, args: obj({ filter: str, pageSize, orderBy: Type.Optional(Type.Union([Type.Literal("timestamp desc"), Type.Literal("timestamp asc")])) }), example: { filter: "severity>=ERROR" }, request: (a, h) => ({ service: "logging", path: "/v2/entries:list", method: "POST", json: { resourceNames: [`projects/${h.project}`], filter: a.filter, orderBy: a.orderBy ?? "timestamp desc", pageSize: a.pageSize ?? 100 } }) }),
  gcpOp({ name: "gcp.assets.search", summary: "asset inventory search", roles: ["roles/cloudasset.viewer"], scope: SCOPES.cloudPlatform, args: obj({ query: optStr, assetTypes: optStr, pageSize }), example: { assetTypes: "run.googleapis.com/Service" }, request: (a, h) => ({ service: "cloudasset", path: `/v1/projects/${h.project}:searchAllResources`, query: a }) }),
  gcpOp({ name: "gcp.recommendations.list", summary: "recommendations of one recommender", roles: ["roles/recommender.viewer"], scope: SCOPES.cloudPlatform, args: obj({ location: str, recommender: str }), example: { location: "global", recommender: "google.iam.policy.Recommender" }, request: (a, h) => ({ service: "recommender", path: `/v1/projects/${h.project}/locations/${seg(a.location)}/recommenders/${seg(a.recommender)}/recommendations` }) }),
  gcpOp({ name: "gcp.security.findings", summary: "Security Command Center findings", roles: ["roles/securitycenter.findingsViewer"], scope: SCOPES.cloudPlatform, args: obj({ filter: optStr, pageSize }), example: { filter: 'state="ACTIVE"' }, request: (a, h) => ({ service: "securitycenter", path: `/v1/projects/${h.project}/sources/-/findings`, query: a }) }),
  gcpOp({ name: "gcp.iam.policy", summary: "the project's IAM policy", roles: ["roles/iam.securityReviewer"], scope: SCOPES.readOnly, args: obj({}), example: {}, request: (_a, h) => ({ service: "cloudresourcemanager", path: `/v1/projects/${h.project}:getIamPolicy`, method: "POST", json: {} }) }),
  gcpOp({ name: "gcp.compute.instances", summary: "Compute Engine instances in every zone", roles: ["roles/viewer"], scope: SCOPES.computeReadonly, args: obj({ filter: optStr }), example: {}, request: (a, h) => ({ service: "compute", path: `/compute/v1/projects/${h.project}/aggregated/instances`, query: a }) }),
  gcpOp({ name: "gcp.gke.clusters", summary: "GKE clusters", roles: ["roles/viewer"], scope: SCOPES.cloudPlatform, args: obj({}), example: {}, request: (_a, h) => ({ service: "container", path: `/v1/projects/${h.project}/locations/-/clusters` }) }),
  gcpOp({ name: "gcp.run.services", summary: "Cloud Run services of a region", roles: ["roles/viewer"], scope: SCOPES.cloudPlatform, args: obj({ location: region }), example: { location: "europe-west1" }, request: (a, h) => ({ service: "run", path: `/v2/projects/${h.project}/locations/${seg(a.location)}/services` }) }),
  gcpOp({ name: "gcp.sql.instances", summary: "Cloud SQL instances (managed SQL)", roles: ["roles/viewer"], scope: SCOPES.sqlAdmin, args: obj({ filter: optStr }), example: {}, request: (a, h) => ({ service: "sqladmin", path: `/v1/projects/${h.project}/instances`, query: a }) }),
  gcpOp({ name: "gcp.functions.list", summary: "Cloud Run functions (Cloud Functions v2) of a region, or of every region with location \"-\"", roles: ["roles/viewer"], scope: SCOPES.cloudPlatform, args: obj({ location: Type.Optional(regionOrAll), pageSize }), example: {}, request: (a, h) => ({ service: "cloudfunctions", path: `/v2/projects/${h.project}/locations/${seg(a.location ?? "-")}/functions`, query: { pageSize: a.pageSize } }) }),
  gcpOp({ name: "gcp.dns.managedZones", summary: "Cloud DNS managed zones", roles: ["roles/viewer"], scope: SCOPES.dnsReadonly, args: obj({ dnsName: optStr }), example: {}, request: (a, h) => ({ service: "dns", path: `/dns/v1/projects/${h.project}/managedZones`, query: a }) }),
  gcpOp({ name: "gcp.artifacts.repositories", summary: "Artifact Registry repositories of a region", roles: ["roles/viewer"], scope: SCOPES.readOnly, args: obj({ location: artifactLocation, pageSize }), example: { location: "europe-west1" }, request: (a, h) => ({ service: "artifactregistry", path: `/v1/projects/${h.project}/locations/${seg(a.location)}/repositories`, query: { pageSize: a.pageSize } }) }),
  gcpOp({ name: "gcp.firestore.databases", summary: "Firestore databases (document store)", roles: ["roles/viewer"], scope: SCOPES.datastore, args: obj({}), example: {}, request: (_a, h) => ({ service: "firestore", path: `/v1/projects/${h.project}/databases` }) }),
  gcpOp({ name: "gcp.redis.instances", summary: "Memorystore for Redis instances (cache) of a region, or of every region with location \"-\"", roles: ["roles/viewer"], scope: SCOPES.cloudPlatform, args: obj({ location: Type.Optional(regionOrAll), pageSize }), example: {}, request: (a, h) => ({ service: "redis", path: `/v1/projects/${h.project}/locations/${seg(a.location ?? "-")}/instances`, query: { pageSize: a.pageSize } }) }),
];

export const gcpConnector: Connector<GcpHandle> = {
  name: "gcp",
  unconfigured: (ctx) => (ctx.env.RUNNER_GCP_CRED_MODE ? (ctx.env.RUNNER_GCP_PROJECT ? null : "RUNNER_GCP_PROJECT is not set") : `RUNNER_GCP_CRED_MODE is not set (${GCP_CRED_MODES.join(" or ")})`),
  // A billing table that is set but malformed is a configuration error (unset is only a note).
  preflight: (ctx) => void (ctx.env[BILLING_TABLE_ENV] ? billingTable(ctx.env) : undefined),
  async open(ctx: AgentContext) {
    return { env: ctx.env, project: ctx.env.RUNNER_GCP_PROJECT!, identity: await gcpIdentity(ctx) };
  },
  async health(h) {
    await call(h, "gcp health", ["roles/viewer"], SCOPES.readOnly, "cloudresourcemanager", `/v1/projects/${h.project}`);
    const cost = h.env[BILLING_TABLE_ENV] ? "cost from the billing export" : `${BILLING_TABLE_ENV} unset: gcp.cost.query will fail`;
    return { status: "ok", detail: `project ${h.project} as ${h.identity.email}; ${cost}` };
  },
  operations: gcpOperations,
};
