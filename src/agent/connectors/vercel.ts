import { Type } from "@sinclair/typebox";
import type { Connector } from "../catalog.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { httpJson, type HttpResult, urlOf } from "./http.ts";
import { limit, obj, optStr, type RestRequest, type RestSpec, restOperations, seg } from "./rest-op.ts";

// Vercel (frontend deployment platform): VERCEL_TOKEN, a read-only token scoped to the team, and
// RUNNER_VERCEL_TEAM_ID sent as ?teamId= on every call. A team token without the team id gets a
// silent 403; the connector explains it as the missing variable. RUNNER_VERCEL_URL (default
// https://api.vercel.com) for proxies and tests.

export interface VercelHandle {
  base: string;
  token: string;
  team: string | undefined;
}

const specs: RestSpec[] = [
  { name: "vercel.deployments.list", summary: "deployments (state, target, commit)", needs: ["read access to deployments"], args: obj({ projectId: optStr, target: Type.Optional(Type.Union([Type.Literal("production"), Type.Literal("preview")])), state: optStr, since: Type.Optional(Type.Integer({ minimum: 0 })), until: Type.Optional(Type.Integer({ minimum: 0 })), limit: limit(100) }), example: { target: "production", limit: 20 }, request: (a) => ({ path: "/v6/deployments", query: a }) },
  { name: "vercel.projects.list", summary: "projects", needs: ["read access to projects"], args: obj({ search: optStr, limit: limit(100) }), example: {}, request: (a) => ({ path: "/v9/projects", query: a }) },
  { name: "vercel.projects.get", summary: "one project", needs: ["read access to projects"], args: obj({ idOrName: Type.String({ pattern: "^[A-Za-z0-9._-]{1,100}$" }) }), example: { idOrName: "web" }, request: (a) => ({ path: `/v9/projects/${seg(a.idOrName)}` }) },
];

async function get(h: VercelHandle, req: RestRequest): Promise<HttpResult> {
  return httpJson(urlOf(h.base, req.path, { ...req.query, teamId: h.team }), { headers: { authorization: `Bearer ${h.token}` } });
}

function refusal(h: VercelHandle, opName: string, needs: string[], res: HttpResult): AgentError {
  if (res.status === 403 && !h.team) {
    return new AgentError("misconfigured", `${opName} was refused (403) because RUNNER_VERCEL_TEAM_ID is not set: a token scoped to a team must name the team on every call`, { missing: ["RUNNER_VERCEL_TEAM_ID"], fix: "set RUNNER_VERCEL_TEAM_ID to the team id (team_…; Team Settings → General)" });
  }
  if (res.status === 403) return new AgentError("permission", `${opName} was refused (403): the token is not scoped to team ${h.team} or lacks ${needs.join(", ")}`, { missing: needs, fix: `create a read-only token scoped to team ${h.team}` });
  if (res.status === 401) return new AgentError("permission", `${opName} was refused (401): VERCEL_TOKEN is invalid or expired`, { fix: "create a new token" });
  if (res.status === 404) return new AgentError("upstream", `${opName}: not found (404)`);
  return new AgentError("upstream", `${opName} failed: Vercel answered ${res.status}`);
}

async function call(h: VercelHandle, s: RestSpec, req: RestRequest): Promise<unknown> {
  const res = await get(h, req);
  if (res.status === 200) return res.body;
  throw refusal(h, s.name, s.needs, res);
}

export const vercelConnector: Connector<VercelHandle> = {
  name: "vercel",
  unconfigured: (ctx) => (ctx.env.VERCEL_TOKEN || ctx.env.RUNNER_VERCEL_URL ? null : "neither VERCEL_TOKEN nor RUNNER_VERCEL_URL is set"),
  async open(ctx) {
    const token = await requireSecret(ctx, "VERCEL_TOKEN");
    return { base: ctx.env.RUNNER_VERCEL_URL || "https://api.vercel.com", token, team: ctx.env.RUNNER_VERCEL_TEAM_ID || undefined };
  },
  async health(h) {
    const needs = ["read access to deployments", "read access to projects"];
    for (const path of ["/v9/projects", "/v6/deployments"]) {
      const res = await get(h, { path, query: { limit: 1 } });
      if (res.status !== 200) throw refusal(h, `vercel health (${path})`, needs, res);
    }
    return { status: "ok", detail: `reads projects and deployments${h.team ? ` of team ${h.team}` : " (personal account)"}` };
  },
  operations: restOperations<VercelHandle>("vercel", "platform", call, specs),
};
