// Argo CD connector against a local fake that judges the account by an RBAC policy as Argo CD does
// (the shipped policies/argocd/runner-rbac.csv unless a test says otherwise): list, detail and sync
// history with `applications, get`; an empty list is followed by can-i and reported as "none
// exist" or "access missing"; the refresh parameter is never sent; nothing but GET.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { argocdConnector } from "../../src/agent/connectors/argocd.ts";
import { createAgentContext } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { readFileSync } from "node:fs";
import { startArgocdFake } from "../fixtures/fakes/argocd.ts";
import { enforce, globMatch } from "../fixtures/fakes/argocd-rbac.ts";
import { agentHealth } from "../helpers/runner-agent.ts";

const TOKEN = "eyJhbGciOiJIUzI1NiJ9.fake-argocd-account-token";
const APPS = [{ name: "api", history: [{ id: 1, revision: "abc123" }, { id: 2, revision: "def456" }] }];
/** The two lines the user adds to argocd-rbac-cm, as shipped. */
const SHIPPED = readFileSync(new URL("../../policies/argocd/runner-rbac.csv", import.meta.url), "utf8");
/** An account that may sync but not get: sync enables nothing the Agent does. */
const NO_GET = "p, role:runner-read, applications, sync, */*, allow\ng, runner, role:runner-read\n";
let fake: ReturnType<typeof startArgocdFake>;
const catalog = new Catalog([argocdConnector]);
const ctx = (token = TOKEN) => createAgentContext({ RUNNER_ARGOCD_URL: fake.url, ARGOCD_TOKEN: token }, pino({ level: "silent" }));

beforeAll(() => {
  fake = startArgocdFake(TOKEN, { policy: SHIPPED, apps: APPS });
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  expect(fake.requests.every((r) => !r.query.has("refresh"))).toBe(true);
  fake.reset();
  fake.state.policy = SHIPPED;
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
    expect(fake.requests.map((r) => r.path)).toEqual(["/api/v1/applications", "/api/v1/account/can-i/applications/get/*/*"]);
  });

  test("empty list without access (200, not an error, from Argo CD): reported as access missing", async () => {
    fake.state.policy = NO_GET;
    const e = await refusal(enforceAndRun(catalog, "argocd.applications.list", {}, ctx()));
    expect(e.code).toBe("permission");
    expect(e.message).toContain("access is missing (applications, get), not \"no applications\"");
    expect(e.missing).toEqual(["applications, get"]);
    expect(e.fix).toContain("policies/argocd/runner-rbac.csv");
  });

  test("health: ok with the permission; names it when missing; a bad token is not shown", async () => {
    expect((await runHealth(catalog, ctx()))[0]).toMatchObject({ status: "ok", detail: "account runner has applications, get" });
    fake.state.policy = NO_GET;
    expect((await runHealth(catalog, ctx()))[0]).toMatchObject({ status: "error", missing: ["applications, get"] });
    const bogus = "eyJhbGciOiJIUzI1NiJ9.bogus-token";
    const [h] = await runHealth(catalog, ctx(bogus));
    expect(h!.detail).toContain("401");
    expect(JSON.stringify(h)).not.toContain(bogus);
  });

  test("the shipped */* grant reaches applications of every project, and can-i is asked with an object it matches", async () => {
    fake.state.apps = [...APPS, { name: "billing", project: "payments", history: [] }];
    const list = (await enforceAndRun(catalog, "argocd.applications.list", {}, ctx())) as { applications: { project: string }[] };
    expect(list.applications.map((a) => a.project)).toEqual(["default", "payments"]);
    expect((await runHealth(catalog, ctx()))[0]).toMatchObject({ status: "ok" });
    const canI = fake.requests.find((r) => r.path.includes("/can-i/"))!;
    const object = decodeURIComponent(canI.path.split("/can-i/applications/get/")[1]!);
    expect(enforce({ policy: SHIPPED }, "runner", "applications", "get", object)).toBe(true);
  });

  test("the fake matches RBAC objects as Argo CD's glob does: `*` spans `/`, the `/` itself is literal", () => {
    expect(globMatch("*/*", "default/api")).toBe(true);
    expect(globMatch("*/*", "team/argocd-apps/api")).toBe(true); // <project>/<namespace>/<name>
    expect(globMatch("*/*", "*")).toBe(false); // what can-i was once asked: a real server says no
    expect(globMatch("my-project/*", "my-project/api")).toBe(true);
    expect(globMatch("my-project/*", "other/api")).toBe(false);
    expect(globMatch("https://github.com/*/*.git", "https://github.com/argo-cd.git")).toBe(false); // Argo CD's own test
    expect(globMatch("{default,payments}/a?i", "payments/api")).toBe(true);
    const policy = `${SHIPPED}p, role:runner-read, applications, get, secret/*, deny\n`;
    expect(enforce({ policy }, "runner", "applications", "get", "default/api")).toBe(true);
    expect(enforce({ policy }, "runner", "applications", "get", "secret/api")).toBe(false); // deny wins
    expect(enforce({ policy }, "someone-else", "applications", "get", "default/api")).toBe(false);
    expect(enforce({ policy: "", defaultRole: "role:runner-read" }, "anyone", "applications", "get", "default/api")).toBe(false);
    expect(enforce({ policy: SHIPPED, defaultRole: "role:runner-read" }, "anyone", "applications", "get", "default/api")).toBe(true);
  });

  test("arguments cannot smuggle a refresh parameter or a path", async () => {
    expect((await refusal(enforceAndRun(catalog, "argocd.applications.get", { name: "api", refresh: "hard" }, ctx()))).code).toBe("invalid_arguments");
    expect((await refusal(enforceAndRun(catalog, "argocd.applications.get", { name: "api?refresh=hard" }, ctx()))).code).toBe("invalid_arguments");
    expect(fake.requests).toEqual([]);
  });
});

describe("Argo CD health (dist/runner)", () => {
  const env = () => ({ RUNNER_ARGOCD_URL: fake.url, ARGOCD_TOKEN: TOKEN });

  test("an account with the shipped RBAC lines is ok (exit 0); without applications, get it needs action", async () => {
    const ok = await agentHealth(env());
    expect(ok.code).toBe(0);
    expect(ok.of("argocd")).toMatchObject({ status: "ok", detail: "account runner has applications, get" });
    fake.state.policy = NO_GET;
    const missing = await agentHealth(env());
    expect(missing.code).toBe(1);
    expect(missing.of("argocd")).toMatchObject({ status: "error", missing: ["applications, get"] });
  });
});
