import { Type } from "@sinclair/typebox";
import type { Connector } from "../catalog.ts";
import type { AgentContext } from "../context.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { httpJson, type HttpResult, urlOf } from "./http.ts";
import { limit, obj, optStr, type RestRequest, type RestSpec, restOperations, seg } from "./rest-op.ts";

// GitHub (source hosting). GITHUB_TOKEN is a fine-grained token (recommended; repository
// permissions, all Read) or a classic token with scopes repo, read:org, security_events.
// Every call is a GET. RUNNER_GITHUB_API_URL (default https://api.github.com; GHES: https://<host>/api/v3);
// RUNNER_GITHUB_REPO (owner/name) lets the health check test each repository permission.
//
// GitHub names what a refused call needed in headers: X-Accepted-GitHub-Permissions (fine-grained,
// e.g. "contents=read") and X-Accepted-OAuth-Scopes (classic). Diagnostics quote those, mapped to
// the names shown in the token settings.

type Perm = "metadata" | "contents" | "pull_requests" | "actions" | "checks" | "administration" | "dependabot_alerts";

const FINE: Record<Perm, string> = {
  metadata: "Metadata: Read",
  contents: "Contents: Read",
  pull_requests: "Pull requests: Read",
  actions: "Actions: Read",
  checks: "Checks: Read",
  administration: "Administration: Read",
  dependabot_alerts: "Dependabot alerts: Read",
};
const CLASSIC: Record<Perm, string> = {
  metadata: "repo",
  contents: "repo",
  pull_requests: "repo",
  actions: "repo",
  checks: "repo",
  administration: "repo",
  dependabot_alerts: "security_events",
};
export const GITHUB_CLASSIC_SCOPES = ["repo", "read:org", "security_events"];

export interface GithubHandle {
  base: string;
  token: string;
}

const needs = (p: Perm, extraClassic: string[] = []) => [FINE.metadata, ...(p === "metadata" ? [] : [FINE[p]]), `classic: ${[CLASSIC[p], ...extraClassic].join(" + ")}`];

async function get(h: GithubHandle, path: string, query?: RestRequest["query"]): Promise<HttpResult> {
  return httpJson(urlOf(h.base, path, query), {
    headers: { authorization: `Bearer ${h.token}`, accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28", "user-agent": "runner-agent" },
  });
}

/** Turns a refusal into the permission to add, from what GitHub says it accepts. */
export function githubRefusal(opName: string, perm: Perm, res: HttpResult): AgentError {
  if (res.status === 401) return new AgentError("permission", `${opName} was refused (401): GITHUB_TOKEN is invalid, expired or revoked`, { fix: "issue a new token" });
  const classic = res.headers.has("x-oauth-scopes");
  const acceptedFine = res.headers.get("x-accepted-github-permissions");
  const acceptedClassic = res.headers.get("x-accepted-oauth-scopes");
  if (classic) {
    const have = scopesOf(res.headers.get("x-oauth-scopes"));
    const want = acceptedClassic ? scopesOf(acceptedClassic) : [CLASSIC[perm]];
    if (!want.some((s) => have.includes(s))) {
      const missing = [want[0] ?? CLASSIC[perm]];
      return new AgentError("permission", `${opName} was refused (${res.status}): the classic token lacks scope ${missing[0]}`, { missing, fix: `add scope ${missing[0]} to the classic token (or use a fine-grained token with ${FINE[perm]})` });
    }
  } else if (res.status === 403 || acceptedFine) {
    const named = (acceptedFine ?? "").split(/[;,]/).map((p) => p.trim().split("=")[0]!).filter((p) => p in FINE) as Perm[];
    const missing = named.length ? named.map((p) => FINE[p]) : [FINE[perm]];
    if (res.status === 403 || res.status === 404) {
      return new AgentError("permission", `${opName} was refused (${res.status}): the fine-grained token lacks ${missing.join(" or ")}`, { missing, fix: `edit the token: Repository permissions → ${missing.join(", ")}` });
    }
  }
  if (res.status === 404) {
    return new AgentError("permission", `${opName}: not found (404) — the repository or object does not exist, or the token's repository access does not include the repository`, { fix: "check the name; add the repository to the token's repository access" });
  }
  return new AgentError("upstream", `${opName} failed: GitHub answered ${res.status}${res.body?.message ? ` (${res.body.message})` : ""}`);
}

const scopesOf = (h: string | null) => (h ?? "").split(",").map((s) => s.trim()).filter(Boolean);

const repo = Type.String({ pattern: "^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$" });
const ref = Type.String({ minLength: 1, maxLength: 255, pattern: "^[^\\s~^:?*\\[\\\\]+$" });
const perPage = limit(100);
const repoPath = (r: string) => `/repos/${r.split("/").map(seg).join("/")}`;
const refPath = (r: string) => r.split("/").map(seg).join("/");

interface GhSpec extends Omit<RestSpec, "needs"> {
  perm: Perm;
  classicExtra?: string[];
}
const PERM_OF = new Map<string, Perm>();
const gh = (s: GhSpec): RestSpec => (PERM_OF.set(s.name, s.perm), { ...s, needs: needs(s.perm, s.classicExtra) });

const specs: RestSpec[] = [
  gh({ name: "github.commits.list", perm: "contents", summary: "commits of a branch or path", args: obj({ repo, sha: Type.Optional(ref), path: optStr, since: optStr, until: optStr, per_page: perPage }), example: { repo: "octo/api", sha: "main", per_page: 20 }, request: ({ repo: r, ...q }) => ({ path: `${repoPath(r)}/commits`, query: q }) }),
  gh({ name: "github.commits.get", perm: "contents", summary: "one commit with its files", args: obj({ repo, ref }), example: { repo: "octo/api", ref: "main" }, request: (a) => ({ path: `${repoPath(a.repo)}/commits/${refPath(a.ref)}` }) }),
  gh({ name: "github.content.get", perm: "contents", summary: "a file or directory at a ref", args: obj({ repo, path: Type.String({ minLength: 1, pattern: "^[^\\0]+$" }), ref: Type.Optional(ref) }), example: { repo: "octo/api", path: "README.md" }, request: (a) => ({ path: `${repoPath(a.repo)}/contents/${refPath(a.path)}`, query: { ref: a.ref } }) }),
  gh({ name: "github.refs.list", perm: "contents", summary: "refs matching a prefix (heads/, tags/)", args: obj({ repo, prefix: ref }), example: { repo: "octo/api", prefix: "heads/" }, request: (a) => ({ path: `${repoPath(a.repo)}/git/matching-refs/${refPath(a.prefix)}` }) }),
  gh({ name: "github.tags.list", perm: "contents", summary: "tags", args: obj({ repo, per_page: perPage }), example: { repo: "octo/api" }, request: ({ repo: r, ...q }) => ({ path: `${repoPath(r)}/tags`, query: q }) }),
  gh({ name: "github.compare", perm: "contents", summary: "comparison of two refs (commits and files)", args: obj({ repo, base: ref, head: ref }), example: { repo: "octo/api", base: "v1.2.0", head: "main" }, request: (a) => ({ path: `${repoPath(a.repo)}/compare/${seg(a.base)}...${seg(a.head)}` }) }),
  gh({ name: "github.code.search", perm: "contents", summary: "code search within one repository", args: obj({ repo, query: Type.String({ minLength: 1, maxLength: 256 }), per_page: perPage }), example: { repo: "octo/api", query: "handleCapture" }, request: (a) => ({ path: "/search/code", query: { q: `${a.query} repo:${a.repo}`, per_page: a.per_page } }) }),
  gh({ name: "github.pulls.list", perm: "pull_requests", summary: "pull requests", args: obj({ repo, state: Type.Optional(Type.Union([Type.Literal("open"), Type.Literal("closed"), Type.Literal("all")])), base: Type.Optional(ref), per_page: perPage }), example: { repo: "octo/api", state: "open" }, request: ({ repo: r, ...q }) => ({ path: `${repoPath(r)}/pulls`, query: q }) }),
  gh({ name: "github.pulls.get", perm: "pull_requests", summary: "one pull request", args: obj({ repo, number: Type.Integer({ minimum: 1 }) }), example: { repo: "octo/api", number: 42 }, request: (a) => ({ path: `${repoPath(a.repo)}/pulls/${a.number}` }) }),
  gh({ name: "github.pulls.files", perm: "pull_requests", summary: "files changed by a pull request", args: obj({ repo, number: Type.Integer({ minimum: 1 }), per_page: perPage }), example: { repo: "octo/api", number: 42 }, request: (a) => ({ path: `${repoPath(a.repo)}/pulls/${a.number}/files`, query: { per_page: a.per_page } }) }),
  gh({ name: "github.commits.pulls", perm: "pull_requests", summary: "pull requests that contain a commit", args: obj({ repo, sha: Type.String({ pattern: "^[0-9a-fA-F]{7,40}$" }) }), example: { repo: "octo/api", sha: "6dcb09b5b57875f334f61aebed695e2e4193db5e" }, request: (a) => ({ path: `${repoPath(a.repo)}/commits/${a.sha}/pulls` }) }),
  gh({ name: "github.actions.runs", perm: "actions", summary: "workflow runs", args: obj({ repo, branch: Type.Optional(ref), status: optStr, head_sha: optStr, per_page: perPage }), example: { repo: "octo/api", branch: "main" }, request: ({ repo: r, ...q }) => ({ path: `${repoPath(r)}/actions/runs`, query: q }) }),
  gh({ name: "github.checks.forRef", perm: "checks", summary: "check runs for a ref", args: obj({ repo, ref, per_page: perPage }), example: { repo: "octo/api", ref: "main" }, request: (a) => ({ path: `${repoPath(a.repo)}/commits/${refPath(a.ref)}/check-runs`, query: { per_page: a.per_page } }) }),
  gh({ name: "github.branches.protection", perm: "administration", summary: "branch protection of a branch", args: obj({ repo, branch: ref }), example: { repo: "octo/api", branch: "main" }, request: (a) => ({ path: `${repoPath(a.repo)}/branches/${refPath(a.branch)}/protection` }) }),
  gh({ name: "github.dependabot.alerts", perm: "dependabot_alerts", summary: "Dependabot security alerts", args: obj({ repo, state: optStr, severity: optStr, per_page: perPage }), example: { repo: "octo/api", state: "open" }, request: ({ repo: r, ...q }) => ({ path: `${repoPath(r)}/dependabot/alerts`, query: q }) }),
  gh({ name: "github.org.repos", perm: "metadata", classicExtra: ["read:org"], summary: "repositories of an organization", args: obj({ org: Type.String({ pattern: "^[A-Za-z0-9-]+$" }), per_page: perPage }), example: { org: "octo" }, request: ({ org, ...q }) => ({ path: `/orgs/${seg(org)}/repos`, query: q }) }),
];

async function call(h: GithubHandle, s: RestSpec, req: RestRequest): Promise<unknown> {
  const res = await get(h, req.path, req.query);
  if (res.status >= 200 && res.status < 300) return res.body;
  throw githubRefusal(s.name, PERM_OF.get(s.name)!, res);
}

// One cheap read per repository permission, for health on a fine-grained token.
const PROBES: [Perm, (repo: string, branch: string) => string][] = [
  ["contents", (r) => `${repoPath(r)}/commits?per_page=1`],
  ["pull_requests", (r) => `${repoPath(r)}/pulls?per_page=1`],
  ["actions", (r) => `${repoPath(r)}/actions/runs?per_page=1`],
  ["checks", (r, b) => `${repoPath(r)}/commits/${refPath(b)}/check-runs?per_page=1`],
  ["administration", (r, b) => `${repoPath(r)}/branches/${refPath(b)}/protection`],
  ["dependabot_alerts", (r) => `${repoPath(r)}/dependabot/alerts?per_page=1`],
];

async function health(h: GithubHandle, ctx: AgentContext) {
  const me = await get(h, "/user");
  if (me.status === 401) throw new AgentError("permission", "GitHub rejected GITHUB_TOKEN (401): invalid, expired or revoked", { fix: "issue a new token" });
  if (me.status !== 200) throw new AgentError("upstream", `GitHub /user answered ${me.status}`);
  const who = me.body?.login ?? "token";
  if (me.headers.has("x-oauth-scopes")) {
    const have = scopesOf(me.headers.get("x-oauth-scopes"));
    const missing = GITHUB_CLASSIC_SCOPES.filter((s) => !have.includes(s));
    if (missing.length) {
      throw new AgentError("permission", `classic token of ${who} lacks scope ${missing.join(", ")}`, { missing, fix: `add scope ${missing.join(", ")} to the token (or use a fine-grained token, all permissions Read)` });
    }
    return { status: "ok" as const, detail: `classic token of ${who} with ${GITHUB_CLASSIC_SCOPES.join(", ")}` };
  }
  const repo = ctx.env.RUNNER_GITHUB_REPO;
  if (!repo) return { status: "ok" as const, detail: `fine-grained token of ${who}; set RUNNER_GITHUB_REPO=owner/name to check its repository permissions` };
  const meta = await get(h, repoPath(repo));
  if (meta.status !== 200) {
    throw new AgentError("permission", `the token cannot read ${repo} (${meta.status}): the repository is not in its repository access, or it lacks ${FINE.metadata}`, { missing: [FINE.metadata], fix: `add ${repo} to the token's repository access with ${FINE.metadata}` });
  }
  const branch = String(meta.body?.default_branch ?? "main");
  const results = await Promise.all(
    PROBES.map(async ([perm, path]) => {
      const res = await get(h, path(repo, branch));
      // 404 on protection means "no protection rule": the permission is there.
      const refused = res.status === 403 || (res.status === 404 && perm !== "administration");
      return refused ? FINE[perm] : undefined;
    }),
  );
  const missing = results.filter((m): m is string => m !== undefined);
  if (missing.length) {
    throw new AgentError("permission", `fine-grained token of ${who} on ${repo} lacks ${missing.join(", ")}`, { missing, fix: `edit the token: Repository permissions → ${missing.join(", ")}` });
  }
  return { status: "ok" as const, detail: `fine-grained token of ${who}: every repository permission readable on ${repo}` };
}

export const githubConnector: Connector<GithubHandle> = {
  name: "github",
  unconfigured: (ctx) => (ctx.env.GITHUB_TOKEN || ctx.env.RUNNER_GITHUB_API_URL ? null : "neither GITHUB_TOKEN nor RUNNER_GITHUB_API_URL is set"),
  async open(ctx) {
    const token = await requireSecret(ctx, "GITHUB_TOKEN", "a fine-grained token with read permissions, or a classic token with repo, read:org, security_events");
    return { base: ctx.env.RUNNER_GITHUB_API_URL || "https://api.github.com", token };
  },
  health,
  operations: restOperations<GithubHandle>("github", "github", call, specs),
};
