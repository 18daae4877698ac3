// Argo CD connector against a local fake: list, detail and sync history with `applications, get`;
// an empty list is followed by can-i and reported as "none exist" or "access missing"; the
// refresh parameter is never sent; nothing but GET.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { argocdConnector } from "../../src/agent/connectors/argocd.ts";
import { createAgentContext } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { startArgocdFake } from "../fixtures/fakes/argocd.ts";

const TOKEN = "eyJhbGciOiJIUzI1NiJ9.fake-argocd-account-token";
const APPS = [{ name: "api", history: [{ id: 1, revision: "abc123" }, { id: 2, revision: "def456" }] }];
let fake: ReturnType<typeof startArgocdFake>;
const catalog = new Catalog([argocdConnector]);
const ctx = (token = TOKEN) => createAgentContext({ RUNNER_ARGOCD_URL: fake.url, ARGOCD_TOKEN: token }, pino({ level: "silent" }));

beforeAll(() => {
  fake = startArgocdFake(TOKEN, { canGet: true, apps: APPS });
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  expect(fake.requests.every((r) => !r.query.has("refresh"))).toBe(true);
  fake.reset();
  fake.state.canGet = true;
  fake.state.apps = APPS;
});
afterAll(() => fake.stop());

describe("Argo CD", () => {
  test("list, detail and sync history all need only applications, get", async () => {
    for (const o of catalog.operations()) expect(o.permission.needs).toEqual(["applications, get"]);
    expect(await enforceAndRun(catalog, "argocd.applications.list", {}, ctx())).toEqual({ applications: [{ name: "api", namespace: "argocd", project: "default", sync: "Synced", revision: "def456", health: "Healthy" }] });
    expect(await enforceAndRun(catalog, "argocd.applications.syncHistory", { name: "api" }, ctx())).toMatchObject({ name: "api", history: APPS[0]!.history });
    expect(await enforceAndRun(catalog, "argocd.applications.get", { name: "api" }, ctx())).toMatchObject({ metadata: { name: "api" } });
    expect(fake.requests.map((r) => r.path)).toEqual(["/api/v1/applications", "/api/v1/applications/api", "/api/v1/applications/api"]);
  });

  test("empty list with access: reported as none exist", async () => {
    fake.state.apps = [];
    expect(await enforceAndRun(catalog, "argocd.applications.list", {}, ctx())).toEqual({ applications: [], diagnosis: "none exist: the account may get applications and there are none" });
    expect(fake.requests.map((r) => r.path)).toEqual(["/api/v1/applications", "/api/v1/account/can-i/applications/get/*"]);
  });

  test("empty list without access (200, not an error, from Argo CD): reported as access missing", async () => {
    fake.state.canGet = false;
    const e = await refusal(enforceAndRun(catalog, "argocd.applications.list", {}, ctx()));
    expect(e.code).toBe("permission");
    expect(e.message).toContain("access is missing (applications, get), not \"no applications\"");
    expect(e.missing).toEqual(["applications, get"]);
    expect(e.fix).toContain("policies/argocd/runner-rbac.csv");
  });

  test("health: ok with the permission; names it when missing; a bad token is not shown", async () => {
    expect((await runHealth(catalog, ctx()))[0]).toMatchObject({ status: "ok", detail: "account runner has applications, get" });
    fake.state.canGet = false;
    expect((await runHealth(catalog, ctx()))[0]).toMatchObject({ status: "error", missing: ["applications, get"] });
    const bogus = "eyJhbGciOiJIUzI1NiJ9.bogus-token";
    const [h] = await runHealth(catalog, ctx(bogus));
    expect(h!.detail).toContain("401");
    expect(JSON.stringify(h)).not.toContain(bogus);
  });

  test("arguments cannot smuggle a refresh parameter or a path", async () => {
    expect((await refusal(enforceAndRun(catalog, "argocd.applications.get", { name: "api", refresh: "hard" }, ctx()))).code).toBe("invalid_arguments");
    expect((await refusal(enforceAndRun(catalog, "argocd.applications.get", { name: "api?refresh=hard" }, ctx()))).code).toBe("invalid_arguments");
    expect(fake.requests).toEqual([]);
  });
});
