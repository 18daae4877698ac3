import { Type } from "@sinclair/typebox";
import type { Connector } from "../catalog.ts";
import type { AgentContext } from "../context.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { httpJson, urlOf } from "./http.ts";
import { limit, obj, optStr, type RestRequest, type RestSpec, restOperations, seg, str } from "./rest-op.ts";

// Jira Cloud (issue tracker), REST API v3. RUNNER_JIRA_URL (https://<site>.atlassian.net),
// JIRA_EMAIL + JIRA_API_TOKEN (basic auth; without JIRA_EMAIL the token is sent as a bearer
// personal access token, as Jira Data Center expects). RUNNER_JIRA_PROJECT (optional) makes the
// health check ask about that project's permissions.
//
// Reads need Browse projects. The only ticket writes of the catalog: ticket.createIssue (Create
// issues), ticket.addComment (Add comments), ticket.transitionIssue (Transition issues). Without
// the write permissions the reads still work; health says which writes are unavailable.

const BROWSE = "Browse projects";
const WRITES: [key: string, permission: string, op: string][] = [
  ["CREATE_ISSUES", "Create issues", "ticket.createIssue"],
  ["ADD_COMMENTS", "Add comments", "ticket.addComment"],
  ["TRANSITION_ISSUES", "Transition issues", "ticket.transitionIssue"],
];

export interface JiraHandle {
  base: string;
  auth: string;
  project: string | undefined;
}

const issueKey = Type.String({ pattern: "^[A-Z][A-Z0-9_]+-[0-9]+$" });
const projectKey = Type.String({ pattern: "^[A-Z][A-Z0-9_]{0,9}$" });
/** Plain text as Atlassian Document Format, which v3 requires for descriptions and comments. */
const adf = (text: string) => ({ type: "doc", version: 1, content: [{ type: "paragraph", content: [{ type: "text", text }] }] });

const specs: RestSpec[] = [
  { name: "jira.issues.search", summary: "issues matching a JQL query", needs: [BROWSE], args: obj({ jql: Type.String({ minLength: 1, maxLength: 2000 }), maxResults: limit(100), fields: optStr, nextPageToken: optStr }), example: { jql: "project = OPS AND status != Done ORDER BY updated DESC", maxResults: 20 }, request: (a) => ({ path: "/rest/api/3/search/jql", query: a }) },
  { name: "jira.issues.get", summary: "one issue", needs: [BROWSE], args: obj({ key: issueKey, fields: optStr }), example: { key: "OPS-42" }, request: (a) => ({ path: `/rest/api/3/issue/${seg(a.key)}`, query: { fields: a.fields } }) },
  { name: "jira.projects.list", summary: "projects the account can browse", needs: [BROWSE], args: obj({ query: optStr, maxResults: limit(100) }), example: {}, request: (a) => ({ path: "/rest/api/3/project/search", query: a }) },
  { name: "jira.transitions.list", summary: "transitions available on an issue (ids for ticket.transitionIssue)", needs: [BROWSE], args: obj({ key: issueKey }), example: { key: "OPS-42" }, request: (a) => ({ path: `/rest/api/3/issue/${seg(a.key)}/transitions` }) },
  { name: "ticket.createIssue", access: "write", summary: "create an issue (write)", needs: [BROWSE, "Create issues"], args: obj({ project: projectKey, summary: Type.String({ minLength: 1, maxLength: 255 }), issueType: Type.Optional(str), description: optStr }), example: { project: "OPS", summary: "p99 regression in handleCapture after v1.4.0", issueType: "Bug" }, request: (a) => ({ method: "POST", path: "/rest/api/3/issue", json: { fields: { project: { key: a.project }, summary: a.summary, issuetype: { name: a.issueType ?? "Task" }, ...(a.description ? { description: adf(a.description) } : {}) } } }) },
  { name: "ticket.addComment", access: "write", summary: "add a comment to an issue (write)", needs: [BROWSE, "Add comments"], args: obj({ key: issueKey, body: Type.String({ minLength: 1, maxLength: 32000 }) }), example: { key: "OPS-42", body: "Profile diff attached in the runner." }, request: (a) => ({ method: "POST", path: `/rest/api/3/issue/${seg(a.key)}/comment`, json: { body: adf(a.body) } }) },
  { name: "ticket.transitionIssue", access: "write", summary: "move an issue through a workflow transition (write)", needs: [BROWSE, "Transition issues"], args: obj({ key: issueKey, transitionId: Type.String({ pattern: "^[0-9]+$" }) }), example: { key: "OPS-42", transitionId: "31" }, request: (a) => ({ method: "POST", path: `/rest/api/3/issue/${seg(a.key)}/transitions`, json: { transition: { id: a.transitionId } } }) },
];

async function send(h: JiraHandle, req: RestRequest) {
  return httpJson(urlOf(h.base, req.path, req.query), { method: req.method, json: req.json, headers: { authorization: h.auth } });
}

async function call(h: JiraHandle, s: RestSpec, req: RestRequest): Promise<unknown> {
  const res = await send(h, req);
  if (res.status >= 200 && res.status < 300) return res.body ?? { ok: true };
  const said = [...(res.body?.errorMessages ?? []), ...Object.values(res.body?.errors ?? {})].join("; ");
  if (res.status === 401) throw new AgentError("permission", `${s.name} was refused (401): the Jira credentials are invalid`, { fix: "issue a new API token for the account" });
  const permissionWords = /permission/i.test(said);
  if (res.status === 403 || (res.status === 400 && permissionWords)) {
    const missing = s.needs.filter((n) => n !== BROWSE);
    const need = missing.length ? missing : [BROWSE];
    throw new AgentError("permission", `${s.name} was refused (${res.status}): the account lacks ${need.join(", ")}${missing.length ? "; reads still work" : ""}`, { missing: need, fix: `grant ${need.join(", ")} to the account in the project's permission scheme` });
  }
  if (res.status === 404) throw new AgentError("permission", `${s.name}: not found (404) — it does not exist or the account lacks ${BROWSE} on its project`, { missing: [BROWSE], fix: `check the key; grant ${BROWSE}` });
  throw new AgentError("upstream", `${s.name} failed: Jira answered ${res.status}${said ? ` (${said})` : ""}`);
}

async function health(h: JiraHandle) {
  const keys = ["BROWSE_PROJECTS", ...WRITES.map(([k]) => k)].join(",");
  const res = await send(h, { path: "/rest/api/3/mypermissions", query: { permissions: keys, projectKey: h.project } });
  if (res.status === 401) throw new AgentError("permission", "Jira rejected the credentials (401)", { fix: "check JIRA_EMAIL and issue a new JIRA_API_TOKEN" });
  if (res.status !== 200) throw new AgentError("upstream", `Jira mypermissions answered ${res.status}`);
  const has = (k: string) => res.body?.permissions?.[k]?.havePermission === true;
  const where = h.project ? `project ${h.project}` : "any project";
  if (!has("BROWSE_PROJECTS")) throw new AgentError("permission", `the account cannot browse ${where}`, { missing: [BROWSE], fix: `grant ${BROWSE} in the project's permission scheme` });
  const absent = WRITES.filter(([k]) => !has(k));
  if (!absent.length) return { status: "ok" as const, detail: `browse, create, comment and transition on ${where}` };
  return {
    status: "ok" as const,
    detail: `reads ok on ${where}; unavailable: ${absent.map(([, p, o]) => `${o} (needs ${p})`).join(", ")}`,
    missing: absent.map(([, p]) => `${p} (optional)`),
    fix: `optional: grant ${absent.map(([, p]) => p).join(", ")} to use the ticket writes`,
  };
}

export const jiraConnector: Connector<JiraHandle> = {
  name: "jira",
  unconfigured: (ctx) => (ctx.env.RUNNER_JIRA_URL ? null : "RUNNER_JIRA_URL is not set"),
  async open(ctx: AgentContext) {
    const token = await requireSecret(ctx, "JIRA_API_TOKEN");
    const email = ctx.env.JIRA_EMAIL;
    const auth = email ? `Basic ${Buffer.from(`${email}:${token}`).toString("base64")}` : `Bearer ${token}`;
    ctx.redactor.add(auth.replace(/^(Basic|Bearer) /, ""));
    return { base: ctx.env.RUNNER_JIRA_URL!, auth, project: ctx.env.RUNNER_JIRA_PROJECT };
  },
  health,
  operations: restOperations<JiraHandle>("jira", "platform", call, specs),
};
