// Jira connector against a local fake: reads need Browse projects; the three ticket writes are the
// only POSTs and send what was asked; without the write permissions reads still work and each
// write names its missing permission; health lists the unavailable writes.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { jiraConnector } from "../../src/agent/connectors/jira.ts";
import { createAgentContext } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { startJiraFake } from "../fixtures/fakes/jira.ts";

const EMAIL = "runner@octo.example";
const TOKEN = "ATATT3xFakeJiraApiToken0000000000";
const ALL = ["BROWSE_PROJECTS", "CREATE_ISSUES", "ADD_COMMENTS", "TRANSITION_ISSUES"];
let fake: ReturnType<typeof startJiraFake>;
const catalog = new Catalog([jiraConnector]);
const ctx = (token = TOKEN) => createAgentContext({ RUNNER_JIRA_URL: fake.url, JIRA_EMAIL: EMAIL, JIRA_API_TOKEN: token, RUNNER_JIRA_PROJECT: "OPS" }, pino({ level: "silent" }));

beforeAll(() => {
  fake = startJiraFake(EMAIL, TOKEN, [...ALL]);
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.reset();
  fake.state.perms = [...ALL];
});
afterAll(() => fake.stop());

describe("Jira", () => {
  test("catalog: four reads on Browse projects and exactly the three ticket writes", () => {
    const rows = catalog.operations().map((o) => `${o.name} ${o.access} ${o.permission.needs.join("+")}`);
    expect(rows).toEqual([
      "jira.issues.get read Browse projects",
      "jira.issues.search read Browse projects",
      "jira.projects.list read Browse projects",
      "jira.transitions.list read Browse projects",
      "ticket.addComment write Browse projects+Add comments",
      "ticket.createIssue write Browse projects+Create issues",
      "ticket.transitionIssue write Browse projects+Transition issues",
    ]);
  });

  test("every example runs; reads are GETs; the writes are the only POSTs and carry what was asked", async () => {
    for (const o of catalog.operations()) await enforceAndRun(catalog, o.name, o.example, ctx());
    expect(fake.requests.filter((r) => r.method === "GET").length).toBe(4);
    expect(fake.writes.map((w) => w.path)).toEqual(["/rest/api/3/issue/OPS-42/comment", "/rest/api/3/issue", "/rest/api/3/issue/OPS-42/transitions"]);
    expect(fake.writes[1]!.body.fields).toEqual({ project: { key: "OPS" }, summary: "p99 regression in handleCapture after v1.4.0", issuetype: { name: "Bug" } });
    expect(fake.writes[2]!.body).toEqual({ transition: { id: "31" } });
    expect(fake.writes[0]!.body.body.content[0].content[0].text).toBe("Profile diff attached in the runner.");
  });

  test("without the three write permissions, reads still work and each write names its permission", async () => {
    fake.state.perms = ["BROWSE_PROJECTS"];
    expect(await enforceAndRun(catalog, "jira.issues.search", { jql: "project = OPS" }, ctx())).toMatchObject({ issues: [{ key: "OPS-42" }] });
    const cases: [string, unknown, string][] = [
      ["ticket.createIssue", { project: "OPS", summary: "x" }, "Create issues"],
      ["ticket.addComment", { key: "OPS-42", body: "x" }, "Add comments"],
      ["ticket.transitionIssue", { key: "OPS-42", transitionId: "31" }, "Transition issues"],
    ];
    for (const [name, args, perm] of cases) {
      const e = await refusal(enforceAndRun(catalog, name, args, ctx()));
      expect(e.code).toBe("permission");
      expect(e.missing).toEqual([perm]);
      expect(e.message).toContain("reads still work");
    }
  });

  test("health: all granted is ok; without writes it is ok and lists them as optional; without Browse it is an error", async () => {
    expect((await runHealth(catalog, ctx()))[0]).toMatchObject({ status: "ok", detail: "browse, create, comment and transition on project OPS" });
    expect(fake.requests[0]!.query.get("projectKey")).toBe("OPS");
    fake.state.perms = ["BROWSE_PROJECTS", "ADD_COMMENTS"];
    const [partial] = await runHealth(catalog, ctx());
    expect(partial!.status).toBe("ok");
    expect(partial!.missing).toEqual(["Create issues (optional)", "Transition issues (optional)"]);
    expect(partial!.detail).toContain("ticket.createIssue (needs Create issues)");
    fake.state.perms = [];
    const [none] = await runHealth(catalog, ctx());
    expect(none).toMatchObject({ status: "error", missing: ["Browse projects"] });
  });

  test("an issue the account cannot browse is a 404 explained as Browse projects; bad credentials never shown", async () => {
    fake.state.perms = [];
    expect((await refusal(enforceAndRun(catalog, "jira.issues.get", { key: "OPS-42" }, ctx()))).missing).toEqual(["Browse projects"]);
    const bogus = "ATATT3xBogusToken000000000000";
    const [h] = await runHealth(catalog, ctx(bogus));
    expect(h!.status).toBe("error");
    expect(JSON.stringify(h)).not.toContain(bogus);
  });
});
