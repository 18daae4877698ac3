import { Type } from "@sinclair/typebox";
import type { Connector } from "../catalog.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { httpJson, type HttpResult, urlOf } from "./http.ts";
import { limit, obj, type RestRequest, type RestSpec, restOperations, seg } from "./rest-op.ts";

// Checkly (synthetic-check platform): CHECKLY_API_KEY with read access to checks and results,
// RUNNER_CHECKLY_ACCOUNT_ID sent as X-Checkly-Account. A user API key needs the account id: without
// it Checkly answers a bare 401, which the connector explains as the missing variable rather than a
// bad key. RUNNER_CHECKLY_URL (default https://api.checklyhq.com) for proxies and tests.

export interface ChecklyHandle {
  base: string;
  key: string;
  account: string | undefined;
}

const READ = "read access to checks and check results";

const specs: RestSpec[] = [
  { name: "checkly.checks.list", summary: "checks and their configuration", needs: [READ], args: obj({ limit: limit(100), page: Type.Optional(Type.Integer({ minimum: 1 })) }), example: { limit: 50 }, request: (a) => ({ path: "/v1/checks", query: a }) },
  { name: "checkly.checkResults.list", summary: "results of one check", needs: [READ], args: obj({ checkId: Type.String({ pattern: "^[0-9a-fA-F-]{8,64}$" }), from: Type.Optional(Type.Integer({ minimum: 0 })), to: Type.Optional(Type.Integer({ minimum: 0 })), hasFailures: Type.Optional(Type.Boolean()), limit: limit(100) }), example: { checkId: "8d3f2c1a-0000-4000-8000-000000000001", hasFailures: true }, request: ({ checkId, ...q }) => ({ path: `/v1/check-results/${seg(checkId)}`, query: q }) },
];

async function get(h: ChecklyHandle, req: RestRequest): Promise<HttpResult> {
  return httpJson(urlOf(h.base, req.path, req.query), { headers: { authorization: `Bearer ${h.key}`, ...(h.account ? { "x-checkly-account": h.account } : {}) } });
}

function refusal(h: ChecklyHandle, opName: string, res: HttpResult): AgentError {
  if (res.status === 401 && !h.account) {
    return new AgentError("misconfigured", `${opName} was refused (401) because RUNNER_CHECKLY_ACCOUNT_ID is not set: a user API key needs the account id (sent as X-Checkly-Account); the key itself may be fine`, { missing: ["RUNNER_CHECKLY_ACCOUNT_ID"], fix: "set RUNNER_CHECKLY_ACCOUNT_ID to the account id (Checkly: Account settings → General)" });
  }
  if (res.status === 401) return new AgentError("permission", `${opName} was refused (401): CHECKLY_API_KEY is invalid for account ${h.account}, or the account id is wrong`, { fix: "check RUNNER_CHECKLY_ACCOUNT_ID; issue a new API key" });
  if (res.status === 403) return new AgentError("permission", `${opName} was refused (403): the key lacks ${READ}`, { missing: [READ], fix: "give the key's user (or the key) a role that can read checks, e.g. Read Only" });
  return new AgentError("upstream", `${opName} failed: Checkly answered ${res.status}`);
}

async function call(h: ChecklyHandle, s: RestSpec, req: RestRequest): Promise<unknown> {
  const res = await get(h, req);
  if (res.status === 200) return res.body;
  throw refusal(h, s.name, res);
}

export const checklyConnector: Connector<ChecklyHandle> = {
  name: "checkly",
  unconfigured: (ctx) => (ctx.env.CHECKLY_API_KEY || ctx.env.RUNNER_CHECKLY_URL ? null : "neither CHECKLY_API_KEY nor RUNNER_CHECKLY_URL is set"),
  async open(ctx) {
    const key = await requireSecret(ctx, "CHECKLY_API_KEY");
    return { base: ctx.env.RUNNER_CHECKLY_URL || "https://api.checklyhq.com", key, account: ctx.env.RUNNER_CHECKLY_ACCOUNT_ID || undefined };
  },
  async health(h) {
    const res = await get(h, { path: "/v1/checks", query: { limit: 1 } });
    if (res.status !== 200) throw refusal(h, "checkly health (checks)", res);
    return { status: "ok", detail: `reads checks of account ${h.account ?? "(account of the key)"}` };
  },
  operations: restOperations<ChecklyHandle>("checkly", "platform", call, specs),
};
