import { createSign } from "node:crypto";
import type { AgentContext } from "../../context.ts";
import { AgentError } from "../../errors.ts";
import { httpJson } from "../http.ts";

// RUNNER_GCP_CRED_MODE:
//   static  a service account key (JSON) in the secret GCP_SERVICE_ACCOUNT_JSON, exchanged for an
//           access token with a signed JWT (OAuth 2.0 JWT bearer grant).
//   chain   workload identity / the attached service account, from the metadata server; no key
//           circulates. RUNNER_GCP_METADATA_URL overrides its address.
// Tokens carry the cloud-platform.read-only scope: even a role that allowed more could not write.

export const GCP_CRED_MODES = ["static", "chain"] as const;
export const READ_ONLY_SCOPE = "https://www.googleapis.com/auth/cloud-platform.read-only";
const METADATA = "http://metadata.google.internal/computeMetadata/v1/instance/service-accounts/default";

export interface GcpIdentity {
  email: string;
  token: string;
}

export async function gcpIdentity(ctx: AgentContext): Promise<GcpIdentity> {
  const mode = ctx.env.RUNNER_GCP_CRED_MODE;
  if (mode === "static") return fromServiceAccountKey(ctx);
  if (mode === "chain") return fromMetadata(ctx);
  throw new AgentError("not_configured", `RUNNER_GCP_CRED_MODE must be one of ${GCP_CRED_MODES.join(", ")}`);
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
  const tokenUri = key.token_uri ?? "https://oauth2.googleapis.com/token";
  const now = Math.floor(Date.now() / 1000);
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const unsigned = `${b64({ alg: "RS256", typ: "JWT" })}.${b64({ iss: key.client_email, scope: READ_ONLY_SCOPE, aud: tokenUri, iat: now, exp: now + 3600 })}`;
  const signature = createSign("RSA-SHA256").update(unsigned).sign(key.private_key).toString("base64url");
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
    throw new AgentError("permission", `GCP refused the service account key of ${key.client_email} (${res.status} ${body.error ?? ""}): the key is invalid, disabled or deleted`.trim());
  }
  ctx.redactor.add(body.access_token);
  return { email: key.client_email, token: body.access_token };
}

async function fromMetadata(ctx: AgentContext): Promise<GcpIdentity> {
  const base = ctx.env.RUNNER_GCP_METADATA_URL || METADATA;
  const headers = { "Metadata-Flavor": "Google" };
  const tok = await httpJson(`${base}/token?scopes=${encodeURIComponent(READ_ONLY_SCOPE)}`, { headers, timeoutMs: 5_000 }).catch(() => undefined);
  if (!tok || tok.status !== 200 || !tok.body?.access_token) {
    throw new AgentError("not_configured", "RUNNER_GCP_CRED_MODE=chain found no metadata server token (no workload identity or attached service account)");
  }
  ctx.redactor.add(tok.body.access_token);
  const email = await fetch(`${base}/email`, { headers, signal: AbortSignal.timeout(5_000) })
    .then((r) => (r.ok ? r.text() : "the workload service account"))
    .catch(() => "the workload service account");
  return { email, token: tok.body.access_token };
}
