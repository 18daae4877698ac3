// Checkly and Vercel against local fakes: their endpoints, and the two documented traps — a
// Checkly user key without the account id (401) and a Vercel team token without the team id
// (403) — explained as the missing variable, not as a bad credential. Nothing but GET.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { checklyConnector } from "../../src/agent/connectors/checkly.ts";
import { vercelConnector } from "../../src/agent/connectors/vercel.ts";
import { createAgentContext, type Env } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { startChecklyFake } from "../fixtures/fakes/checkly.ts";
import type { Fake } from "../fixtures/fakes/recorder.ts";
import { startVercelFake } from "../fixtures/fakes/vercel.ts";

const CK_KEY = "cu_fakechecklykey0000000000000000";
const ACCOUNT = "2c6f1e3a-0000-4000-8000-00000000acc1";
const VC_TOKEN = "vercel_fake_token_000000000000000";
const TEAM = "team_fake0000000000000001";
let checkly: ReturnType<typeof startChecklyFake>;
let vercel: Fake;
const quiet = (e: Env) => createAgentContext(e, pino({ level: "silent" }));
const ck = (extra: Env = { RUNNER_CHECKLY_ACCOUNT_ID: ACCOUNT }) => quiet({ CHECKLY_API_KEY: CK_KEY, RUNNER_CHECKLY_URL: checkly.url, ...extra });
const vc = (extra: Env = { RUNNER_VERCEL_TEAM_ID: TEAM }) => quiet({ VERCEL_TOKEN: VC_TOKEN, RUNNER_VERCEL_URL: vercel.url, ...extra });
const catalog = new Catalog([checklyConnector, vercelConnector]);

beforeAll(() => {
  checkly = startChecklyFake(CK_KEY, ACCOUNT);
  vercel = startVercelFake(VC_TOKEN, TEAM);
});
afterEach(() => {
  expect(checkly.violations).toEqual([]);
  expect(vercel.violations).toEqual([]);
  checkly.reset();
  vercel.reset();
  checkly.state.canRead = true;
});
afterAll(() => {
  checkly.stop();
  vercel.stop();
});

describe("Checkly", () => {
  test("checks and check results through /v1/checks and /v1/check-results/{id}", async () => {
    await enforceAndRun(catalog, "checkly.checks.list", {}, ck());
    await enforceAndRun(catalog, "checkly.checkResults.list", { checkId: "8d3f2c1a-0000-4000-8000-000000000001", hasFailures: true }, ck());
    expect(checkly.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/checks", "GET /v1/check-results/8d3f2c1a-0000-4000-8000-000000000001"]);
    expect(checkly.requests[0]!.headers.get("x-checkly-account")).toBe(ACCOUNT);
  });

  test("a user key without the account id: the 401 is explained as RUNNER_CHECKLY_ACCOUNT_ID", async () => {
    const e = await refusal(enforceAndRun(catalog, "checkly.checks.list", {}, ck({})));
    expect(e.code).toBe("misconfigured");
    expect(e.message).toContain("because RUNNER_CHECKLY_ACCOUNT_ID is not set");
    const [h] = await runHealth(new Catalog([checklyConnector]), ck({}));
    expect(h).toMatchObject({ status: "error", missing: ["RUNNER_CHECKLY_ACCOUNT_ID"] });
  });

  test("with the account id, a 401 is the key; a 403 is missing read access", async () => {
    const e = await refusal(enforceAndRun(catalog, "checkly.checks.list", {}, quiet({ CHECKLY_API_KEY: "cu_wrongkey000000000", RUNNER_CHECKLY_URL: checkly.url, RUNNER_CHECKLY_ACCOUNT_ID: ACCOUNT })));
    expect(e.code).toBe("permission");
    expect(e.message).toContain("CHECKLY_API_KEY is invalid");
    expect(e.message).not.toContain("cu_wrongkey");
    checkly.state.canRead = false;
    expect((await runHealth(new Catalog([checklyConnector]), ck()))[0]).toMatchObject({ status: "error", missing: ["read access to checks and check results"] });
  });
});

describe("Vercel", () => {
  test("deployments via /v6/deployments and projects via /v9/projects, always with teamId", async () => {
    for (const o of catalog.operations().filter((o) => o.connector === "vercel")) await enforceAndRun(catalog, o.name, o.example, vc());
    expect(vercel.requests.map((r) => r.path).sort()).toEqual(["/v6/deployments", "/v9/projects", "/v9/projects/web"]);
    expect(vercel.requests.every((r) => r.method === "GET" && r.query.get("teamId") === TEAM)).toBe(true);
  });

  test("a team token without the team id: the silent 403 is explained as RUNNER_VERCEL_TEAM_ID", async () => {
    const e = await refusal(enforceAndRun(catalog, "vercel.deployments.list", {}, vc({})));
    expect(e.code).toBe("misconfigured");
    expect(e.message).toContain("because RUNNER_VERCEL_TEAM_ID is not set");
    const [h] = await runHealth(new Catalog([vercelConnector]), vc({}));
    expect(h).toMatchObject({ status: "error", missing: ["RUNNER_VERCEL_TEAM_ID"] });
    expect((await runHealth(new Catalog([vercelConnector]), vc()))[0]).toMatchObject({ status: "ok" });
  });

  test("with the team id, a 403 says the token is not scoped to that team", async () => {
    const e = await refusal(enforceAndRun(catalog, "vercel.projects.list", {}, vc({ RUNNER_VERCEL_TEAM_ID: "team_other" })));
    expect(e.code).toBe("permission");
    expect(e.message).toContain("not scoped to team team_other");
  });
});
