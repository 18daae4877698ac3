import { createSign } from "node:crypto";
import type { AgentContext } from "../../context.ts";
import { AgentError } from "../../errors.ts";
import { httpJson } from "../http.ts";

// RUNNER_GCP_CRED_MODE:
//   static  a service account key (JSON) in the secret GCP_SERVICE_ACCOUNT_JSON, exchanged for an
//           access token with a signed JWT (OAuth 2.0 JWT bearer grant); the key never leaves.
//   chain   workload identity / the attached service account, from the metadata server; no key
//           circulates. RUNNER_GCP_METADATA_URL overrides its address.
//
// OAuth scopes: one access token per scope, asked for when an operation first needs it. Each
// operation asks for the narrowest scope Google documents for its method, a read-only one wherever
// the method accepts one (cloud-platform.read-only, compute.readonly, monitoring.read,
// ndev.clouddns.readonly, cloud-billing.readonly, logging.read). Several read methods accept no
// read-only scope at all (GKE, Cloud Run, Cloud Functions, Memorystore, Asset Inventory,
// Recommender, Security Command Center: only cloud-platform; Cloud SQL: sqlservice.admin;
// Firestore: datastore): for those the token's scope cannot make the request read-only, and the
// roles of policies/gcp/runner-roles.json (viewer roles, no write permission) are the boundary.

export const GCP_CRED_MODES = ["static", "chain"] as const;

const AUTH = "https://www.googleapis.com/auth/";
export const SCOPES = {
  readOnly: `${AUTH}cloud-platform.read-only`,
  cloudPlatform: `${AUTH}cloud-platform`,
  computeReadonly: `${AUTH}compute.readonly`,
  monitoringRead: `${AUTH}monitoring.read`,
  loggingRead: `${AUTH}logging.read`,
  billingReadonly: `${AUTH}cloud-billing.readonly`,
  dnsReadonly: `${AUTH}ndev.clouddns.readonly`,
  sqlAdmin: `${AUTH}sqlservice.admin`,
  datastore: `${AUTH}datastore`,
} as const;
export type GcpScope = (typeof SCOPES)[keyof typeof SCOPES];

const METADATA = "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default";

export interface GcpIdentity {
  email: string;
  mode: "static" | "chain";
  /** An access token carrying `scope`, fetched once per scope and run. */
  token(scope: GcpScope): Promise<string>;
}

export async function gcpIdentity(ctx: AgentContext): Promise<GcpIdentity> {
  const mode = ctx.env.RUNNER_GCP_CRED_MODE;
  if (mode === "static") return fromServiceAccountKey(ctx);
  if (mode === "chain") return fromMetadata(ctx);
  throw new AgentError("not_configured", `RUNNER_GCP_CRED_MODE must be one of ${GCP_CRED_MODES.join(", ")}`);
}

function cached(fetchToken: (scope: GcpScope) => Promise<string>): (scope: GcpScope) => Promise<string> {
  const tokens = new Map<GcpScope, Promise<string>>();
  return (scope) => {
    let t = tokens.get(scope);
    if (!t) {
      t = fetchToken(scope);
      tokens.set(scope, t);
    }
    return t;
  };
}

async function fromServiceAccountKey(ctx: AgentContext): Promise<GcpIdentity> {
  const raw = await ctx.secrets.get("GCP_SERVICE_ACCOUNT_JSON");
  if (!raw) throw new AgentError("not_configured", "RUNNER_GCP_CRED_MODE=static needs GCP_SERVICE_ACCOUNT_JSON (a service account key)");
  let key: { client_email?: string; private_key?: string; token_uri?: string };
  try {
    key = JSON.parse(raw);
  } catch {
    throw new AgentError("not_configured", "GCP_SERVICE_ACCOUNT_JSON is not valid JSON");
  }
  if (!key.client_email || !key.private_key) throw new AgentError("not_configured", "GCP_SERVICE_ACCOUNT_JSON lacks client_email or private_key");
  ctx.redactor.add(key.private_key);
  const { client_email: email, private_key: privateKey } = key;
  const tokenUri = key.token_uri ?? "https://oauth2.googleapis.com/token";
  const token = cached(async (scope) => {
    const now = Math.floor(Date.now() / 1000);
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const unsigned = `${b64({ alg: "RS256", typ: "JWT" })}.${b64({ iss: email, scope, aud: tokenUri, iat: now, exp: now + 3600 })}`;
    const signature = createSign("RSA-SHA256").update(unsigned).sign(privateKey).toString("base64url");
    const res = await fetch(tokenUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: `${unsigned}.${signature}` }),
      signal: AbortSignal.timeout(15_000),
    }).catch((e) => {
      throw new AgentError("upstream", `cannot reach the GCP token endpoint: ${e instanceof Error ? e.message : String(e)}`);
    });
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; error?: string };
    if (!res.ok || !body.access_token) {
      throw new AgentError("permission", `GCP refused the service account key of ${email} (${res.status} ${body.error ?? ""}): the key is invalid, disabled or deleted`.trim());
    }
    ctx.redactor.add(body.access_token);
    return body.access_token;
  });
  return { email, mode: "static", token };
}

async function fromMetadata(ctx: AgentContext): Promise<GcpIdentity> {
  const base = ctx.env.RUNNER_GCP_METADATA_URL || METADATA;
  const headers = { "Metadata-Flavor": "Google" };
  const token = cached(async (scope) => {
    const tok = await httpJson(`${base}/token?scopes=${encodeURIComponent(scope)}`, { headers, timeoutMs: 5_000 }).catch(() => undefined);
    if (!tok || tok.status !== 200 || !tok.body?.access_token) {
      throw new AgentError("not_configured", "RUNNER_GCP_CRED_MODE=chain found no metadata server token (no workload identity or attached service account)");
    }
    ctx.redactor.add(tok.body.access_token);
    return tok.body.access_token as string;
  });
  const email = await fetch(`${base}/email`, { headers, signal: AbortSignal.timeout(5_000) })
    .then((r) => (r.ok ? r.text() : "the workload service account"))
    .catch(() => "the workload service account");
  return { email, mode: "chain", token };
}
