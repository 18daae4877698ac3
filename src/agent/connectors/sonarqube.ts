import { Type } from "@sinclair/typebox";
import type { Connector } from "../catalog.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { httpJson, type HttpResult, urlOf } from "./http.ts";
import { limit, obj, optStr, type RestRequest, type RestSpec, restOperations, str } from "./rest-op.ts";

// SonarQube / SonarCloud (code-quality platform): a user token SONAR_TOKEN with Browse on the
// analyzed projects. RUNNER_SONAR_URL (e.g. https://sonarcloud.io); RUNNER_SONAR_PROJECT (optional)
// lets health check Browse on that project. All four endpoints are GETs.

const BROWSE = "Browse (on the analyzed projects)";

export interface SonarHandle {
  base: string;
  token: string;
  project: string | undefined;
}

const key = Type.String({ pattern: "^[A-Za-z0-9_.:-]{1,400}$" });

const specs: RestSpec[] = [
  { name: "sonar.issues.search", summary: "issues of a project", needs: [BROWSE], args: obj({ project: key, severities: optStr, types: optStr, resolved: Type.Optional(Type.Boolean()), ps: limit(500), p: Type.Optional(Type.Integer({ minimum: 1 })) }), example: { project: "octo_api", resolved: false, ps: 50 }, request: ({ project, ...q }) => ({ path: "/api/issues/search", query: { components: project, ...q } }) },
  { name: "sonar.measures.component", summary: "measures of a project (coverage, bugs, …)", needs: [BROWSE], args: obj({ component: key, metricKeys: str }), example: { component: "octo_api", metricKeys: "coverage,bugs,vulnerabilities,code_smells" }, request: (a) => ({ path: "/api/measures/component", query: a }) },
  { name: "sonar.qualitygates.projectStatus", summary: "quality gate status of a project", needs: [BROWSE], args: obj({ projectKey: key, branch: optStr, pullRequest: optStr }), example: { projectKey: "octo_api" }, request: (a) => ({ path: "/api/qualitygates/project_status", query: a }) },
  { name: "sonar.hotspots.search", summary: "security hotspots of a project", needs: [BROWSE], args: obj({ project: key, status: Type.Optional(Type.Union([Type.Literal("TO_REVIEW"), Type.Literal("REVIEWED")])), ps: limit(500) }), example: { project: "octo_api", status: "TO_REVIEW" }, request: (a) => ({ path: "/api/hotspots/search", query: a }) },
];

async function get(h: SonarHandle, req: RestRequest): Promise<HttpResult> {
  return httpJson(urlOf(h.base, req.path, req.query), { headers: { authorization: `Bearer ${h.token}` } });
}

function refusal(opName: string, project: string | undefined, res: HttpResult): AgentError {
  if (res.status === 401) return new AgentError("permission", `${opName} was refused (401): SONAR_TOKEN is invalid or revoked`, { fix: "generate a new user token (My Account → Security)" });
  if (res.status === 403) {
    return new AgentError("permission", `${opName} was refused (403): the token's user lacks Browse on ${project ?? "the project"}`, { missing: [`Browse on ${project ?? "the project"}`], fix: `grant Browse on ${project ?? "the project"} to the user (Project Settings → Permissions)` });
  }
  if (res.status === 404) return new AgentError("upstream", `${opName}: not found (404): ${res.body?.errors?.[0]?.msg ?? "no such project or component"}`);
  return new AgentError("upstream", `${opName} failed: SonarQube answered ${res.status}`);
}

async function call(h: SonarHandle, s: RestSpec, req: RestRequest): Promise<unknown> {
  const res = await get(h, req);
  if (res.status === 200) return res.body;
  const q = req.query ?? {};
  throw refusal(s.name, String(q.components ?? q.component ?? q.projectKey ?? q.project ?? ""), res);
}

export const sonarqubeConnector: Connector<SonarHandle> = {
  name: "sonarqube",
  unconfigured: (ctx) => (ctx.env.RUNNER_SONAR_URL ? null : "RUNNER_SONAR_URL is not set"),
  async open(ctx) {
    const token = await requireSecret(ctx, "SONAR_TOKEN", "a user token with Browse on the analyzed projects");
    return { base: ctx.env.RUNNER_SONAR_URL!, token, project: ctx.env.RUNNER_SONAR_PROJECT };
  },
  async health(h) {
    // validate answers 200 {valid:false} for a bad token rather than 401.
    const v = await get(h, { path: "/api/authentication/validate" });
    if (v.status !== 200 || v.body?.valid !== true) throw refusal("sonarqube health", undefined, { ...v, status: 401 });
    if (!h.project) return { status: "ok", detail: "token valid; set RUNNER_SONAR_PROJECT to check Browse on a project" };
    const res = await get(h, { path: "/api/qualitygates/project_status", query: { projectKey: h.project } });
    if (res.status !== 200) throw refusal("sonarqube health (quality gate)", h.project, res);
    return { status: "ok", detail: `token valid; Browse on ${h.project}` };
  },
  operations: restOperations<SonarHandle>("sonarqube", "platform", call, specs),
};
