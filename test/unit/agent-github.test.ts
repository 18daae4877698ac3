// GitHub connector against a local fake: every operation is a GET on its documented endpoint,
// refusals name the fine-grained permission (or classic scope) to add, health checks each
// repository permission, and the token never appears in output.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { githubConnector } from "../../src/agent/connectors/github.ts";
import { createAgentContext, type Env } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { startGithubFake } from "../fixtures/fakes/github.ts";
import type { Fake } from "../fixtures/fakes/recorder.ts";

const ALL = ["metadata", "contents", "pull_requests", "actions", "checks", "administration", "dependabot_alerts"];
const FULL = "github_pat_full0000000000000000000000";
const NO_CHECKS = "github_pat_nochecks00000000000000000";
const CLASSIC = "ghp_classicfull000000000000000000000";
const CLASSIC_NO_SEC = "ghp_classicnosec00000000000000000000";
let fake: Fake;
const catalog = new Catalog([githubConnector]);
const ctx = (token: string, extra: Env = {}) => createAgentContext({ GITHUB_TOKEN: token, RUNNER_GITHUB_API_URL: fake.url, ...extra }, pino({ level: "silent" }));

beforeAll(() => {
  fake = startGithubFake({
    [FULL]: { kind: "fine", login: "runner-bot", perms: ALL },
    [NO_CHECKS]: { kind: "fine", login: "runner-bot", perms: ALL.filter((p) => p !== "checks" && p !== "dependabot_alerts") },
    [CLASSIC]: { kind: "classic", login: "ci", scopes: ["repo", "read:org", "security_events"] },
    [CLASSIC_NO_SEC]: { kind: "classic", login: "ci", scopes: ["repo", "read:org"] },
  });
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.reset();
});
afterAll(() => fake.stop());

describe("GitHub", () => {
  test("every catalogued operation runs its example as a GET with a fine-grained token", async () => {
    const ops = catalog.operations();
    expect(ops.map((o) => o.name)).toContain("github.dependabot.alerts");
    for (const o of ops) {
      expect(o.access).toBe("read");
      expect(o.permission.system).toBe("github");
      expect(o.permission.needs[0]).toBe("Metadata: Read");
      expect(o.permission.needs.at(-1)).toMatch(/^classic: /);
      const args = o.name === "github.org.repos" ? o.example : { ...(o.example as object), repo: "octo/api" };
      await enforceAndRun(catalog, o.name, args, ctx(FULL));
    }
    expect(fake.requests.every((r) => r.method === "GET")).toBe(true);
    expect(fake.requests.length).toBe(ops.length);
  });

  test("catalog permissions are the reference's: each operation names its fine-grained permission", () => {
    const needs = (n: string) => catalog.lookup(n).permission.needs;
    expect(needs("github.compare")).toEqual(["Metadata: Read", "Contents: Read", "classic: repo"]);
    expect(needs("github.commits.pulls")).toEqual(["Metadata: Read", "Pull requests: Read", "classic: repo"]);
    expect(needs("github.actions.runs")).toContain("Actions: Read");
    expect(needs("github.checks.forRef")).toContain("Checks: Read");
    expect(needs("github.branches.protection")).toContain("Administration: Read");
    expect(needs("github.dependabot.alerts")).toEqual(["Metadata: Read", "Dependabot alerts: Read", "classic: security_events"]);
    expect(needs("github.org.repos")).toEqual(["Metadata: Read", "classic: repo + read:org"]);
  });

  test("code search is scoped to the repository; compare builds base...head", async () => {
    await enforceAndRun(catalog, "github.code.search", { repo: "octo/api", query: "handleCapture" }, ctx(FULL));
    await enforceAndRun(catalog, "github.compare", { repo: "octo/api", base: "v1.2.0", head: "main" }, ctx(FULL));
    expect(fake.requests[0]!.query.get("q")).toBe("handleCapture repo:octo/api");
    expect(fake.requests[1]!.path).toBe("/repos/octo/api/compare/v1.2.0...main");
  });

  test("a fine-grained token without Checks: Read gets an error naming that permission", async () => {
    const e = await refusal(enforceAndRun(catalog, "github.checks.forRef", { repo: "octo/api", ref: "main" }, ctx(NO_CHECKS)));
    expect(e.code).toBe("permission");
    expect(e.message).toContain("lacks Checks: Read");
    expect(e.missing).toEqual(["Checks: Read"]);
    expect(e.fix).toContain("Repository permissions → Checks: Read");
  });

  test("a classic token without security_events: Dependabot alerts names the scope", async () => {
    const e = await refusal(enforceAndRun(catalog, "github.dependabot.alerts", { repo: "octo/api" }, ctx(CLASSIC_NO_SEC)));
    expect(e.code).toBe("permission");
    expect(e.missing).toEqual(["security_events"]);
    expect(await enforceAndRun(catalog, "github.pulls.list", { repo: "octo/api" }, ctx(CLASSIC_NO_SEC))).toBeTruthy();
  });

  test("health on a fine-grained token probes each repository permission and names the missing ones", async () => {
    const [ok] = await runHealth(catalog, ctx(FULL, { RUNNER_GITHUB_REPO: "octo/api" }));
    expect(ok!.status).toBe("ok");
    const [bad] = await runHealth(catalog, ctx(NO_CHECKS, { RUNNER_GITHUB_REPO: "octo/api" }));
    expect(bad!.status).toBe("error");
    expect(bad!.missing).toEqual(["Checks: Read", "Dependabot alerts: Read"]);
    expect(bad!.fix).toBe("edit the token: Repository permissions → Checks: Read, Dependabot alerts: Read");
  });

  test("health on a classic token compares its scopes with repo, read:org, security_events", async () => {
    expect((await runHealth(catalog, ctx(CLASSIC)))[0]!.status).toBe("ok");
    const [bad] = await runHealth(catalog, ctx(CLASSIC_NO_SEC));
    expect(bad!.status).toBe("error");
    expect(bad!.missing).toEqual(["security_events"]);
  });

  test("a bad token is reported without the token", async () => {
    const bogus = "github_pat_bogus0000000000000000000";
    const [h] = await runHealth(catalog, ctx(bogus));
    expect(h!.status).toBe("error");
    expect(h!.detail).toContain("401");
    expect(JSON.stringify(h)).not.toContain(bogus);
  });

  test("arguments cannot add path components", async () => {
    expect((await refusal(enforceAndRun(catalog, "github.pulls.list", { repo: "octo/api/../../x" }, ctx(FULL)))).code).toBe("invalid_arguments");
    await enforceAndRun(catalog, "github.content.get", { repo: "octo/api", path: "docs/a b.md" }, ctx(FULL));
    expect(fake.requests[0]!.path).toBe("/repos/octo/api/contents/docs/a%20b.md");
  });
});
