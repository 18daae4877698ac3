// GCP connector against a local fake: service-account JWT exchange, one role per operation
// matching policies/gcp/runner-roles.json, 403s naming the role, and the cost operation failing
// explicitly when the billing export table variable is unset.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { gcpConnector } from "../../src/agent/connectors/gcp.ts";
import { createAgentContext, type Env } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { type GcpFake, GCP_ROUTES, startGcpFake } from "../fixtures/fakes/gcp.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { agentFailure, agentHealth, runnerAgent } from "../helpers/runner-agent.ts";

const roleFile = JSON.parse(readFileSync(join(REPO_ROOT, "policies/gcp/runner-roles.json"), "utf8"));
const ALL_ROLES: string[] = [...roleFile.project, ...roleFile.billingAccount].map((r: { role: string }) => r.role);
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const EMAIL = "runner@acme-prod.iam.gserviceaccount.com";
const PEM = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
let fake: GcpFake;
const catalog = new Catalog([gcpConnector]);
const env = (over: Env = {}): Env => ({
  RUNNER_GCP_CRED_MODE: "static",
  RUNNER_GCP_PROJECT: "acme-prod",
  RUNNER_GCP_BILLING_EXPORT_TABLE: "acme-billing.billing.gcp_billing_export_v1_0123",
  RUNNER_GCP_URL_TEMPLATE: `${fake.url}/{service}`,
  GCP_SERVICE_ACCOUNT_JSON: JSON.stringify({ type: "service_account", client_email: EMAIL, private_key: PEM, token_uri: fake.tokenUri }),
  ...over,
});
const ctx = (e: Env) => createAgentContext(e, pino({ level: "silent" }));

beforeAll(() => {
  fake = startGcpFake({ email: EMAIL, publicKey, roles: [...ALL_ROLES] });
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.requests.length = 0;
  fake.tokenRequests.length = 0;
  fake.options.roles = [...ALL_ROLES];
});
afterAll(() => fake.stop());

describe("GCP", () => {
  test("every operation runs with its example and every role of the roles file is used", async () => {
    for (const o of catalog.operations()) await enforceAndRun(catalog, o.name, o.example, ctx(env()));
    expect(new Set(catalog.operations().flatMap((o) => o.permission.needs))).toEqual(new Set(ALL_ROLES));
  });

  // Roles alone are not enough: roles/viewer is granted for nine services, and each of them must
  // have a read operation, or the grant is unused privilege (or the catalog misses a service).
  test("every service roles/viewer is granted for has a read operation in the catalog (dist/runner)", async () => {
    const viewer = roleFile.project.find((r: { role: string }) => r.role === "roles/viewer");
    const named: string[] = viewer.enables.split(",").map((x: string) => x.trim());
    // The reference's words for each service, and the Google API host that serves it.
    const API_OF: Record<string, string> = {
      compute: "compute",
      "managed Kubernetes": "container",
      "managed SQL": "sqladmin",
      "serverless run": "run",
      functions: "cloudfunctions",
      DNS: "dns",
      "artifact registry": "artifactregistry",
      "document store": "firestore",
      cache: "redis",
    };
    expect(named.sort()).toEqual(Object.keys(API_OF).sort());
    const listed = JSON.parse((await runnerAgent(["catalog", "--json"], {})).stdout) as { name: string; connector: string; access: string; permission: { needs: string[] }; example: unknown }[];
    const viewerOps = listed.filter((o) => o.connector === "gcp" && o.permission.needs.includes("roles/viewer"));
    expect(viewerOps.every((o) => o.access === "read" && o.permission.needs.length === 1)).toBe(true);
    const served = new Set<string>();
    for (const o of viewerOps) {
      fake.requests.length = 0;
      fake.options.roles = ["roles/viewer"]; // each runs on roles/viewer alone
      const r = await runnerAgent(["run", o.name, "--args", JSON.stringify(o.example)], env());
      expect(r.code).toBe(0);
      expect(fake.requests.map((q) => q.method)).toEqual(["GET"]);
      served.add(fake.requests[0]!.service);
    }
    expect([...served].sort()).toEqual(Object.values(API_OF).sort());
  });

  // Google checks the token's OAuth scope before the role: a read-only token is refused by the
  // methods that accept only cloud-platform (GKE, Cloud Run, functions, Memorystore, …).
  test("each operation's token carries a scope its method accepts, read-only wherever the method accepts one (dist/runner)", async () => {
    const CP = "https://www.googleapis.com/auth/cloud-platform";
    const readOnly = (x: string) => /read-only|readonly|\.read$/.test(x);
    for (const o of catalog.operations()) {
      fake.requests.length = 0;
      const r = await runnerAgent(["run", o.name, "--args", JSON.stringify(o.example)], env());
      expect({ op: o.name, code: r.code, err: r.code ? r.stderr.slice(0, 300) : "" }).toEqual({ op: o.name, code: 0, err: "" });
      const [q] = fake.requests;
      expect({ op: o.name, accepted: q!.accepted.includes(q!.scope!) }).toEqual({ op: o.name, accepted: true });
      if (q!.accepted.some(readOnly)) expect({ op: o.name, readOnly: readOnly(q!.scope!) }).toEqual({ op: o.name, readOnly: true });
      else if (q!.accepted.some((x) => x !== CP)) expect({ op: o.name, scope: q!.scope }).not.toEqual({ op: o.name, scope: CP });
    }
  });

  test("a token scope the method does not accept is named as the scope, not as a role", async () => {
    const compute = GCP_ROUTES.find((r) => r[0] === "compute")!;
    const documented = compute[4];
    compute[4] = documented.filter((x) => !x.endsWith("compute.readonly")); // as if Google stopped accepting it
    try {
      const e = await refusal(enforceAndRun(catalog, "gcp.compute.instances", {}, ctx(env())));
      expect(e.message).toBe("gcp.compute.instances was refused (403, ACCESS_TOKEN_SCOPE_INSUFFICIENT): compute does not accept a token with scope https://www.googleapis.com/auth/compute.readonly. Roles are not the problem");
      expect(e.missing).toEqual(["https://www.googleapis.com/auth/compute.readonly"]);
    } finally {
      compute[4] = documented;
    }
  });

  test("without roles/viewer each of the nine services names roles/viewer", async () => {
    fake.options.roles = ALL_ROLES.filter((r) => r !== "roles/viewer");
    for (const name of ["gcp.sql.instances", "gcp.functions.list", "gcp.dns.managedZones", "gcp.artifacts.repositories", "gcp.firestore.databases", "gcp.redis.instances"]) {
      const e = await refusal(enforceAndRun(catalog, name, catalog.lookup(name).example, ctx(env())));
      expect(e.message).toBe(`${name} was refused (403): grant roles/viewer to ${EMAIL} on project acme-prod`);
    }
  });

  test("the billing export table unset: the cost operation fails explicitly, before any query", async () => {
    const e = await refusal(enforceAndRun(catalog, "gcp.cost.query", { days: 7 }, ctx(env({ RUNNER_GCP_BILLING_EXPORT_TABLE: undefined }))));
    expect(e.code).toBe("not_configured");
    expect(e.message).toContain("gcp.cost.query needs RUNNER_GCP_BILLING_EXPORT_TABLE");
    expect(fake.requests).toEqual([]);
    const [h] = await runHealth(catalog, ctx(env({ RUNNER_GCP_BILLING_EXPORT_TABLE: undefined })));
    expect(h!.status).toBe("ok");
    expect(h!.detail).toContain("RUNNER_GCP_BILLING_EXPORT_TABLE unset: gcp.cost.query will fail");
  });

  test("the cost query reads the named table with a parameter, never string-built from arguments", async () => {
    await enforceAndRun(catalog, "gcp.cost.query", { days: 7, groupBy: "sku" }, ctx(env()));
    const q = fake.requests.find((r) => r.service === "bigquery")!;
    expect(q.body.query).toContain("FROM `acme-billing.billing.gcp_billing_export_v1_0123`");
    expect(q.body.query).toStartWith("SELECT sku.description AS name");
    expect(q.body.queryParameters[0].parameterValue.value).toBe("7");
  });

  test("a malformed billing table name is refused", async () => {
    const e = await refusal(enforceAndRun(catalog, "gcp.cost.query", {}, ctx(env({ RUNNER_GCP_BILLING_EXPORT_TABLE: "x`; DROP TABLE y; --" }))));
    expect(e.code).toBe("not_configured");
    expect(fake.requests).toEqual([]);
  });

  test("arguments put into a request path stay one path segment each (no ../ out of the recommender's path)", async () => {
    await enforceAndRun(catalog, "gcp.recommendations.list", { location: "global", recommender: "../../../../../v1/projects/other:getIamPolicy" }, ctx(env()));
    expect(fake.requests.map((q) => q.path)).toEqual(["/v1/projects/acme-prod/locations/global/recommenders/..%2F..%2F..%2F..%2F..%2Fv1%2Fprojects%2Fother%3AgetIamPolicy/recommendations"]);
  });

  test("a missing role is named, billing viewer on the billing account", async () => {
    fake.options.roles = ["roles/viewer"];
    const logs = await refusal(enforceAndRun(catalog, "gcp.logs.query", { filter: "severity>=ERROR" }, ctx(env())));
    expect(logs.message).toBe(`gcp.logs.query was refused (403): grant roles/logging.viewer to ${EMAIL} on project acme-prod`);
    const billing = await refusal(enforceAndRun(catalog, "gcp.billing.account", { billingAccount: "012345-6789AB-CDEF01" }, ctx(env())));
    expect(billing.message).toContain("grant roles/billing.viewer");
    expect(billing.message).toContain("on the billing account (not the project)");
  });

  test("health: project and identity; a key the token endpoint rejects is reported without the key", async () => {
    const [ok] = await runHealth(catalog, ctx(env()));
    expect(ok).toEqual({ connector: "gcp", status: "ok", detail: `project acme-prod as ${EMAIL}; cost from the billing export` });
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const [bad] = await runHealth(catalog, ctx(env({ GCP_SERVICE_ACCOUNT_JSON: JSON.stringify({ client_email: EMAIL, private_key: other, token_uri: fake.tokenUri }) })));
    expect(bad!.status).toBe("error");
    expect(bad!.detail).toContain("GCP refused the service account key");
    expect(bad!.detail).not.toContain("PRIVATE KEY");
  });

  test("chain mode takes the token from the metadata server", async () => {
    const md = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        if (req.headers.get("metadata-flavor") !== "Google") return new Response("", { status: 403 });
        const p = new URL(req.url).pathname;
        if (p.endsWith("/email")) return new Response("wi@acme-prod.iam.gserviceaccount.com");
        return Response.json({ access_token: "ya29.metadata-not-issued-by-fake", expires_in: 3600 });
      },
    });
    try {
      // The fake API did not issue that token, so it answers 401: proof the metadata token was used.
      const e = await refusal(enforceAndRun(catalog, "gcp.gke.clusters", {}, ctx(env({ RUNNER_GCP_CRED_MODE: "chain", GCP_SERVICE_ACCOUNT_JSON: undefined, RUNNER_GCP_METADATA_URL: `http://127.0.0.1:${md.port}/sa` }))));
      expect(e.message).toBe("gcp.gke.clusters was refused (401): GCP does not accept the credential of wi@acme-prod.iam.gserviceaccount.com");
      expect(e.message).not.toContain("ya29");
    } finally {
      md.stop(true);
    }
  });
});

// Order of failures, through the compiled `runner agent`: configuration before credentials.
describe("GCP: configuration errors come before any credential is fetched (dist/runner)", () => {
  const otherKey = () => generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();

  test("billing export variable unset and a broken key: the variable is reported, no token is asked for", async () => {
    const broken = JSON.stringify({ client_email: EMAIL, private_key: otherKey(), token_uri: fake.tokenUri });
    const r = await runnerAgent(["run", "gcp.cost.query", "--args", JSON.stringify({ days: 7 })], env({ RUNNER_GCP_BILLING_EXPORT_TABLE: undefined, GCP_SERVICE_ACCOUNT_JSON: broken }));
    const f = agentFailure(r);
    expect(f.code).toBe("not_configured");
    expect(f.message).toContain("gcp.cost.query needs RUNNER_GCP_BILLING_EXPORT_TABLE");
    expect(fake.tokenRequests).toEqual([]);
    expect(fake.requests).toEqual([]);
  });

  test("a malformed billing table is reported before the key too", async () => {
    const f = agentFailure(await runnerAgent(["run", "gcp.cost.query", "--args", "{}"], env({ RUNNER_GCP_BILLING_EXPORT_TABLE: "not-a-table", GCP_SERVICE_ACCOUNT_JSON: "{not json" })));
    expect(f.code).toBe("not_configured");
    expect(f.message).toBe("RUNNER_GCP_BILLING_EXPORT_TABLE must be project.dataset.table");
    expect(fake.tokenRequests).toEqual([]);
  });

  test("with the variable set, the broken key is what is reported", async () => {
    const broken = JSON.stringify({ client_email: EMAIL, private_key: otherKey(), token_uri: fake.tokenUri });
    const f = agentFailure(await runnerAgent(["run", "gcp.cost.query", "--args", "{}"], env({ GCP_SERVICE_ACCOUNT_JSON: broken })));
    expect(f.code).toBe("permission");
    expect(f.message).toContain("GCP refused the service account key");
    expect(fake.tokenRequests).toEqual(["(bad signature)"]);
  });

  test("health: a malformed billing table is reported before the key is tried", async () => {
    const broken = JSON.stringify({ client_email: EMAIL, private_key: otherKey(), token_uri: fake.tokenUri });
    const h = await agentHealth(env({ RUNNER_GCP_BILLING_EXPORT_TABLE: "billing", GCP_SERVICE_ACCOUNT_JSON: broken }));
    expect(h.code).toBe(1);
    expect(h.of("gcp")).toMatchObject({ status: "error", detail: "RUNNER_GCP_BILLING_EXPORT_TABLE must be project.dataset.table" });
    expect(fake.tokenRequests).toEqual([]);
  });
});
