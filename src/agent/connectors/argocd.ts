import { Type } from "@sinclair/typebox";
import type { Connector } from "../catalog.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { httpJson, type HttpResult, urlOf } from "./http.ts";
import { obj, optStr, type RestRequest, type RestSpec, restOperations, seg } from "./rest-op.ts";

// Argo CD (GitOps deployment tool): a local account with the single permission `applications,
// get` (policies/argocd/). RUNNER_ARGOCD_URL, ARGOCD_TOKEN (from `argocd account generate-token`),
// RUNNER_ARGOCD_CA (optional PEM for a private CA).
//
// Two documented traps:
//  - the service never sends the `refresh` parameter (it would make Argo CD compare against git);
//    requests are built only from the fields below, and the fake fails any request carrying it;
//  - a token without `applications, get` gets 200 with an empty list, not an error. So every empty
//    list is followed by `can-i applications get`, and the answer says which case it is.

export const ARGOCD_PERMISSION = "applications, get";
const RBAC_FIX = "add the two lines of policies/argocd/runner-rbac.csv to argocd-rbac-cm policy.csv (p, role:runner-read, applications, get, */*, allow + g, <account>, role:runner-read)";

export interface ArgocdHandle {
  base: string;
  token: string;
  ca: string | undefined;
}

const appName = Type.String({ pattern: "^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$" });

async function get(h: ArgocdHandle, path: string, query?: RestRequest["query"]): Promise<HttpResult> {
  const url = urlOf(h.base, path, query);
  if (new URL(url).searchParams.has("refresh")) throw new Error("argocd: refusing to send the refresh parameter"); // structural guard
  return httpJson(url, { headers: { authorization: `Bearer ${h.token}` }, ...(h.ca ? { tls: { ca: h.ca } } : {}) });
}

// The object can-i is asked about. Argo CD names an application `<project>/<name>` and matches
// the RBAC object as a glob in which `*` also spans `/`, but the `/` itself is literal: the
// documented grant `*/*` matches `*/*` (and every `<project>/<name>`), never a bare `*`.
const ANY_APPLICATION = "*/*";

/** Asks Argo CD whether this account may get applications, in any project. */
export async function canGetApplications(h: ArgocdHandle): Promise<boolean> {
  const res = await get(h, `/api/v1/account/can-i/applications/get/${ANY_APPLICATION}`);
  if (res.status !== 200) throw refusal("can-i applications get", res);
  return res.body?.value === "yes";
}

function refusal(opName: string, res: HttpResult): AgentError {
  if (res.status === 401) return new AgentError("permission", `${opName} was refused (401): ARGOCD_TOKEN is invalid, expired, or its account is disabled`, { fix: "issue a new token: argocd account generate-token --account <account>" });
  if (res.status === 403 || res.status === 404) {
    return new AgentError("permission", `${opName} was refused (${res.status}): the account lacks ${ARGOCD_PERMISSION} on this application (Argo CD answers 403/404 alike)`, { missing: [ARGOCD_PERMISSION], fix: RBAC_FIX });
  }
  return new AgentError("upstream", `${opName} failed: Argo CD answered ${res.status}`);
}

const summaryOf = (a: any) => ({
  name: a?.metadata?.name,
  namespace: a?.metadata?.namespace,
  project: a?.spec?.project,
  sync: a?.status?.sync?.status,
  revision: a?.status?.sync?.revision,
  health: a?.status?.health?.status,
});

const specs: RestSpec[] = [
  { name: "argocd.applications.list", summary: "applications with sync and health status; an empty list says whether none exist or access is missing", needs: [ARGOCD_PERMISSION], args: obj({ project: optStr, selector: optStr }), example: {}, request: (a) => ({ path: "/api/v1/applications", query: { projects: a.project, selector: a.selector } }) },
  { name: "argocd.applications.get", summary: "one application (spec and status)", needs: [ARGOCD_PERMISSION], args: obj({ name: appName, appNamespace: optStr }), example: { name: "api" }, request: (a) => ({ path: `/api/v1/applications/${seg(a.name)}`, query: { appNamespace: a.appNamespace } }) },
  { name: "argocd.applications.syncHistory", summary: "sync history of an application (a field of its status)", needs: [ARGOCD_PERMISSION], args: obj({ name: appName, appNamespace: optStr }), example: { name: "api" }, request: (a) => ({ path: `/api/v1/applications/${seg(a.name)}`, query: { appNamespace: a.appNamespace } }) },
];

async function call(h: ArgocdHandle, s: RestSpec, req: RestRequest): Promise<unknown> {
  const res = await get(h, req.path, req.query);
  if (res.status !== 200) throw refusal(s.name, res);
  if (s.name === "argocd.applications.list") {
    const items: unknown[] = res.body?.items ?? [];
    if (items.length) return { applications: items.map(summaryOf) };
    // 200 + empty: the same answer for "nothing deployed" and "no permission". Ask.
    if (await canGetApplications(h)) return { applications: [], diagnosis: "none exist: the account may get applications and there are none" };
    throw new AgentError("permission", `Argo CD returned an empty list and says this account may not get applications: access is missing (${ARGOCD_PERMISSION}), not "no applications"`, { missing: [ARGOCD_PERMISSION], fix: RBAC_FIX });
  }
  if (s.name === "argocd.applications.syncHistory") {
    return { name: res.body?.metadata?.name, history: res.body?.status?.history ?? [], operationState: res.body?.status?.operationState?.phase };
  }
  return res.body;
}

export const argocdConnector: Connector<ArgocdHandle> = {
  name: "argocd",
  unconfigured: (ctx) => (ctx.env.RUNNER_ARGOCD_URL ? null : "RUNNER_ARGOCD_URL is not set"),
  async open(ctx) {
    const token = await requireSecret(ctx, "ARGOCD_TOKEN", "argocd account generate-token --account <account>");
    return { base: ctx.env.RUNNER_ARGOCD_URL!, token, ca: ctx.env.RUNNER_ARGOCD_CA };
  },
  async health(h) {
    const me = await get(h, "/api/v1/session/userinfo");
    if (me.status !== 200 || me.body?.loggedIn !== true) throw refusal("Argo CD session", me.status === 200 ? { ...me, status: 401 } : me);
    if (!(await canGetApplications(h))) {
      throw new AgentError("permission", `account ${me.body.username ?? "?"} may not get applications: lists would come back empty`, { missing: [ARGOCD_PERMISSION], fix: RBAC_FIX });
    }
    return { status: "ok", detail: `account ${me.body.username ?? "?"} has ${ARGOCD_PERMISSION}` };
  },
  operations: restOperations<ArgocdHandle>("argocd", "platform", call, specs),
};
