// `runner agent health` prints a table a person can act on: connector, status, missing permission,
// fix. Checked on the executable against real local fakes (one healthy connector with optional
// permissions missing, two needing action, the rest unconfigured), and the whole catalog keeps the
// five writes as the only writes.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ALLOWED_WRITES, Catalog } from "../../src/agent/catalog.ts";
import { CONNECTORS } from "../../src/agent/connectors/index.ts";
import { healthTable } from "../../src/agent/health-table.ts";
import { startGithubFake } from "../fixtures/fakes/github.ts";
import type { Fake } from "../fixtures/fakes/recorder.ts";
import { startSlackFake } from "../fixtures/fakes/slack.ts";
import { startVercelFake } from "../fixtures/fakes/vercel.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";

setDefaultTimeout(60_000);
const GH = "ghp_classicnosecurity0000000000000000";
const SLACK = "xoxb-0000000000-tablebot0000000000";
const VERCEL = "vercel_table_token_0000000000000";
let github: Fake;
let slack: Fake;
let vercel: Fake;

beforeAll(() => {
  github = startGithubFake({ [GH]: { kind: "classic", login: "ci", scopes: ["repo", "read:org"] } });
  slack = startSlackFake(SLACK, ["channels:read", "groups:read", "channels:history", "groups:history", "chat:write"]);
  vercel = startVercelFake(VERCEL, "team_x");
});
afterAll(() => {
  for (const f of [github, slack, vercel]) {
    expect(f.violations).toEqual([]);
    f.stop();
  }
});

describe("runner agent health", () => {
  test("a table: errors first with the missing permission and the fix, then ok, then not configured", async () => {
    const p = Bun.spawn([...runnerCommand(), "agent", "health"], {
      env: { PATH: process.env.PATH ?? "", HOME: "/tmp", GITHUB_TOKEN: GH, RUNNER_GITHUB_API_URL: github.url, SLACK_BOT_TOKEN: SLACK, RUNNER_SLACK_API_URL: slack.url, VERCEL_TOKEN: VERCEL, RUNNER_VERCEL_URL: vercel.url },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect(code).toBe(1); // something needs action
    const lines = out.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^CONNECTOR\s+STATUS\s+MISSING PERMISSION\s+FIX \/ DETAIL$/);
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `)) ?? "";
    expect(row("github")).toMatch(/^github\s+error\s+security_events\s+add scope security_events to the token/);
    expect(row("vercel")).toMatch(/^vercel\s+error\s+RUNNER_VERCEL_TEAM_ID\s+set RUNNER_VERCEL_TEAM_ID to the team id/);
    expect(row("slack")).toMatch(/^slack\s+ok\s+channels:manage \(optional\)\s+optional: add channels:manage to enable chat.createChannel/);
    expect(row("mongodb")).toMatch(/^mongodb\s+skipped\s+-\s+neither MONGODB_URI/);
    // order: the two errors, then ok, then skipped
    const statuses = lines.slice(1, CONNECTORS.length + 1).map((l) => l.split(/\s+/)[1]);
    expect(statuses.slice(0, 3)).toEqual(["error", "error", "ok"]);
    expect(new Set(statuses.slice(3))).toEqual(new Set(["skipped"]));
    expect(lines.at(-1)).toBe(`${CONNECTORS.length} connectors: 1 ok, 2 need action, ${CONNECTORS.length - 3} not configured`);
    for (const secret of [GH, SLACK, VERCEL]) expect(out + err).not.toContain(secret);
  });

  test("--json carries the same missing permission and fix fields", async () => {
    const p = Bun.spawn([...runnerCommand(), "agent", "health", "--json"], {
      env: { PATH: process.env.PATH ?? "", HOME: "/tmp", GITHUB_TOKEN: GH, RUNNER_GITHUB_API_URL: github.url },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
    expect(code).toBe(1);
    const rows = JSON.parse(out) as { connector: string; status: string; missing?: string[]; fix?: string }[];
    expect(rows.find((r) => r.connector === "github")).toMatchObject({ status: "error", missing: ["security_events"], fix: expect.stringContaining("add scope security_events") });
  });

  test("columns line up; a row without a separate fix shows its detail", () => {
    const t = healthTable([
      { connector: "a", status: "ok", detail: "fine" },
      { connector: "longer-name", status: "error", detail: "x refused", missing: ["p:read", "q:read"], fix: "grant p:read, q:read" },
    ]);
    expect(t).toBe(
      [
        "CONNECTOR    STATUS  MISSING PERMISSION  FIX / DETAIL",
        "longer-name  error   p:read, q:read      grant p:read, q:read (x refused)",
        "a            ok      -                   fine",
        "",
        "2 connectors: 1 ok, 1 need action, 0 not configured",
        "",
      ].join("\n"),
    );
  });
});

describe("the whole catalog", () => {
  test("the five catalogued writes are the only writes, each in its connector", () => {
    const catalog = new Catalog(CONNECTORS);
    const writes = catalog.operations().filter((o) => o.access === "write");
    expect(writes.map((o) => `${o.connector}:${o.name}`).sort()).toEqual(["jira:ticket.addComment", "jira:ticket.createIssue", "jira:ticket.transitionIssue", "slack:chat.createChannel", "slack:chat.postMessage"]);
    expect(writes.map((o) => o.name).sort()).toEqual([...ALLOWED_WRITES].sort());
  });

  test("every connector of issue 9 is in the catalog with operations that name their permission", () => {
    const catalog = new Catalog(CONNECTORS);
    const names = catalog.connectors().map((c) => c.name);
    for (const c of ["github", "slack", "jira", "argocd", "checkly", "vercel", "sonarqube", "amplitude", "cloudflare", "azion", "mongodb", "grafana"]) expect(names).toContain(c);
    for (const o of catalog.operations()) expect(o.permission.needs.every((n) => n.trim().length > 0)).toBe(true);
  });
});
