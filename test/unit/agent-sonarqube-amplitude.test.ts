// SonarQube and Amplitude against local fakes: the reference's endpoints, every call a GET,
// refusals naming the missing permission (Browse on the project; dashboard/export API access).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { amplitudeConnector } from "../../src/agent/connectors/amplitude.ts";
import { sonarqubeConnector } from "../../src/agent/connectors/sonarqube.ts";
import { createAgentContext, type Env } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { startAmplitudeFake } from "../fixtures/fakes/amplitude.ts";
import { startSonarFake } from "../fixtures/fakes/sonarqube.ts";

const SONAR = "squ_fakesonartoken000000000000000000";
const AMP_KEY = "fakeamplitudeapikey0001";
const AMP_SECRET = "fakeamplitudesecret0001";
let sonar: ReturnType<typeof startSonarFake>;
let amp: ReturnType<typeof startAmplitudeFake>;
const quiet = (e: Env) => createAgentContext(e, pino({ level: "silent" }));
const sq = (extra: Env = {}) => quiet({ RUNNER_SONAR_URL: sonar.url, SONAR_TOKEN: SONAR, ...extra });
const am = (extra: Env = {}) => quiet({ RUNNER_AMPLITUDE_URL: amp.url, AMPLITUDE_API_KEY: AMP_KEY, AMPLITUDE_SECRET_KEY: AMP_SECRET, ...extra });
const catalog = new Catalog([sonarqubeConnector, amplitudeConnector]);

beforeAll(() => {
  sonar = startSonarFake(SONAR, ["octo_api"]);
  amp = startAmplitudeFake(AMP_KEY, AMP_SECRET);
});
afterEach(() => {
  expect(sonar.violations).toEqual([]);
  expect(amp.violations).toEqual([]);
  sonar.reset();
  amp.reset();
  amp.state.dashboards = true;
});
afterAll(() => {
  sonar.stop();
  amp.stop();
});

describe("SonarQube", () => {
  test("the four endpoints of the reference, as GETs", async () => {
    for (const o of catalog.operations().filter((o) => o.connector === "sonarqube")) await enforceAndRun(catalog, o.name, o.example, sq());
    expect(sonar.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual(["GET /api/hotspots/search", "GET /api/issues/search", "GET /api/measures/component", "GET /api/qualitygates/project_status"]);
  });

  test("a project without Browse: the refusal names Browse on that project", async () => {
    const e = await refusal(enforceAndRun(catalog, "sonar.issues.search", { project: "octo_web" }, sq()));
    expect(e.code).toBe("permission");
    expect(e.missing).toEqual(["Browse on octo_web"]);
  });

  test("health: token validity, then Browse on RUNNER_SONAR_PROJECT", async () => {
    expect((await runHealth(new Catalog([sonarqubeConnector]), sq({ RUNNER_SONAR_PROJECT: "octo_api" })))[0]).toMatchObject({ status: "ok", detail: "token valid; Browse on octo_api" });
    expect((await runHealth(new Catalog([sonarqubeConnector]), sq({ RUNNER_SONAR_PROJECT: "octo_web" })))[0]).toMatchObject({ status: "error", missing: ["Browse on octo_web"] });
    const [bad] = await runHealth(new Catalog([sonarqubeConnector]), sq({ SONAR_TOKEN: "squ_bogus00000000000" }));
    expect(bad!.detail).toContain("SONAR_TOKEN is invalid");
    expect(JSON.stringify(bad)).not.toContain("squ_bogus");
  });
});

describe("Amplitude", () => {
  test("segmentation, funnels, dashboards, charts as GETs; funnel events repeat the e parameter", async () => {
    for (const o of catalog.operations().filter((o) => o.connector === "amplitude")) await enforceAndRun(catalog, o.name, o.example, am());
    expect(amp.requests.map((r) => r.path).sort()).toEqual(["/charts/abc123x", "/dashboards", "/events/segmentation", "/funnels"]);
    expect(amp.requests.find((r) => r.path === "/funnels")!.query.getAll("e")).toEqual(['{"event_type":"view"}', '{"event_type":"checkout"}']);
  });

  test("keys without dashboard API access: 403 names it; wrong keys: 401 names the keys, never their values", async () => {
    amp.state.dashboards = false;
    const e = await refusal(enforceAndRun(catalog, "amplitude.dashboards.list", {}, am()));
    expect(e.missing).toEqual(["Dashboard REST API access"]);
    expect((await runHealth(new Catalog([amplitudeConnector]), am()))[0]!.status).toBe("error");
    const [bad] = await runHealth(new Catalog([amplitudeConnector]), am({ AMPLITUDE_SECRET_KEY: "wrongsecret000000" }));
    expect(bad!.detail).toContain("AMPLITUDE_API_KEY / AMPLITUDE_SECRET_KEY are wrong");
    expect(JSON.stringify(bad)).not.toContain("wrongsecret");
  });
});
