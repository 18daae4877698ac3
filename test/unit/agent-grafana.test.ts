// Grafana Cloud stack connector against a local fake: metrics:read is the only required scope;
// each missing optional scope fails only its own operations with an actionable error, health
// stays ok and says what is missing; synthetics go through /api/v1/check/list.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { grafanaConnector } from "../../src/agent/connectors/grafana.ts";
import { createAgentContext, type Env } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { type GrafanaFake, startGrafanaFake, SYNTHETICS_SCOPE } from "../fixtures/fakes/grafana.ts";
import { agentFailure, agentHealth, runnerAgent } from "../helpers/runner-agent.ts";

const TOKEN = "glc_fakeaccesspolicytoken0123456789";
const ALL = ["metrics:read", "logs:read", "traces:read", "alerts:read", "rules:read", "stacks:read", "stack-dashboards:read", SYNTHETICS_SCOPE];
let fake: GrafanaFake;
const catalog = new Catalog([grafanaConnector]);
const ctx = (e: Env) => createAgentContext(e, pino({ level: "silent" }));

beforeAll(() => {
  fake = startGrafanaFake({ token: TOKEN, user: "123456", scopes: [...ALL] });
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.requests.length = 0;
  fake.options.scopes = [...ALL];
});
afterAll(() => fake.stop());

describe("Grafana stack", () => {
  test("every operation runs with its example when every scope is granted", async () => {
    for (const o of catalog.operations()) {
      const out = (await enforceAndRun(catalog, o.name, o.example, ctx(fake.env()))) as { status: string };
      expect(out.status).toBe("success");
    }
  });

  test("synthetics go through /api/v1/check/list", async () => {
    await enforceAndRun(catalog, "grafana.synthetics.checks", {}, ctx(fake.env()));
    expect(fake.requests).toEqual([{ backend: "sm", path: "/api/v1/check/list", query: "" }]);
  });

  test("with only metrics:read, health is ok and lists what is missing; metrics work", async () => {
    fake.options.scopes = ["metrics:read"];
    const [h] = await runHealth(catalog, ctx(fake.env()));
    expect(h!.status).toBe("ok");
    expect(h!.detail).toStartWith("metrics:read ok;");
    expect(h!.detail).toContain("logs: missing logs:read (grafana.logs.* will fail)");
    expect(h!.detail).toContain("traces: missing traces:read");
    expect(h!.detail).toContain("alerting: missing alerts:read + rules:read");
    expect(h!.detail).toContain("dashboards: missing stacks:read + stack-dashboards:read");
    expect(h!.missing).toContain("logs:read (optional)"); // listed in the health table, never an error
    expect(await enforceAndRun(catalog, "grafana.metrics.query", { query: "up" }, ctx(fake.env()))).toBeTruthy();
  });

  test("each missing optional scope gives an actionable error for that operation only", async () => {
    fake.options.scopes = ["metrics:read"];
    const cases: [string, unknown, string][] = [
      ["grafana.logs.query", { query: '{a="b"}' }, "logs:read"],
      ["grafana.traces.search", { q: "{}" }, "traces:read"],
      ["grafana.monitors.rules", {}, "alerts:read + rules:read"],
      ["grafana.dashboards.search", {}, "stacks:read + stack-dashboards:read"],
      ["grafana.synthetics.checks", {}, "synthetic-monitoring access (scope name to be confirmed)"],
    ];
    for (const [name, args, scope] of cases) {
      const e = await refusal(enforceAndRun(catalog, name, args, ctx(fake.env())));
      expect(e.code).toBe("permission");
      expect(e.message).toContain(`lacks the optional scope ${scope}. Add it to the access policy to use ${name}`);
    }
  });

  test("without metrics:read, health fails naming the required scope", async () => {
    fake.options.scopes = ALL.filter((s) => s !== "metrics:read");
    const [h] = await runHealth(catalog, ctx(fake.env()));
    expect(h!.status).toBe("error");
    expect(h!.detail).toContain("lacks metrics:read, the one required scope");
    expect(h!.detail).not.toContain(TOKEN);
  });

  test("an unconfigured optional backend fails its operations only, and health notes it", async () => {
    const env = { ...fake.env(), RUNNER_GRAFANA_LOKI_URL: undefined };
    const e = await refusal(enforceAndRun(catalog, "grafana.logs.query", { query: '{a="b"}' }, ctx(env)));
    expect(e.code).toBe("not_configured");
    expect(e.message).toContain("RUNNER_GRAFANA_LOKI_URL");
    const [h] = await runHealth(catalog, ctx(env));
    expect(h!.status).toBe("ok");
    expect(h!.detail).toContain("logs: not configured (RUNNER_GRAFANA_LOKI_URL)");
  });

  test("the token is sent as basic auth with the instance id to data backends, bearer elsewhere, never shown", async () => {
    const [h] = await runHealth(catalog, ctx({ ...fake.env(), GRAFANA_CLOUD_TOKEN: "glc_wrongtoken000000000000" }));
    expect(h!.status).toBe("error");
    expect(h!.detail).not.toContain("glc_wrongtoken");
  });
});

// The compiled `runner agent`: a revoked token is the token, never a scope.
describe("Grafana stack: a revoked token (dist/runner)", () => {
  const REVOKED = "glc_revokedaccesspolicytoken00000000";

  test("an operation of an optional scope names the token, not the scope", async () => {
    const r = await runnerAgent(["run", "grafana.logs.query", "--args", JSON.stringify({ query: '{a="b"}' })], { ...fake.env(), GRAFANA_CLOUD_TOKEN: REVOKED });
    expect(r.code).toBe(1);
    const f = agentFailure(r);
    expect(f.code).toBe("permission");
    expect(f.message).toContain('refused (401, "authentication error: invalid token"): GRAFANA_CLOUD_TOKEN is invalid, expired or revoked');
    expect(f.message).not.toContain("logs:read");
    expect(f.message).not.toContain("optional scope");
    expect(r.stderr).not.toContain(REVOKED);
  });

  test("a metrics operation and health name the token, not metrics:read", async () => {
    const r = await runnerAgent(["run", "grafana.metrics.query", "--args", JSON.stringify({ query: "up" })], { ...fake.env(), GRAFANA_CLOUD_TOKEN: REVOKED });
    expect(agentFailure(r).message).toContain("GRAFANA_CLOUD_TOKEN is invalid, expired or revoked");
    expect(agentFailure(r).message).not.toContain("metrics:read");
    const h = await agentHealth({ ...fake.env(), GRAFANA_CLOUD_TOKEN: REVOKED });
    expect(h.code).toBe(1);
    expect(h.of("grafana").detail).toContain("GRAFANA_CLOUD_TOKEN is invalid, expired or revoked");
    expect(h.of("grafana").missing).toBeUndefined();
    expect(h.of("grafana").fix).toBe("create a new access policy token and set GRAFANA_CLOUD_TOKEN");
  });

  test("a valid token missing a scope is still reported as that scope", async () => {
    fake.options.scopes = ["metrics:read"];
    const r = await runnerAgent(["run", "grafana.logs.query", "--args", JSON.stringify({ query: '{a="b"}' })], fake.env());
    expect(agentFailure(r).message).toContain("lacks the optional scope logs:read");
  });

  test("an unconfigured backend is reported before the token is fetched from the secret store", async () => {
    // The secret store points at nothing reachable: had the token been fetched first, that
    // failure would hide the missing variable.
    const env = { ...fake.env(), GRAFANA_CLOUD_TOKEN: undefined, RUNNER_GRAFANA_LOKI_URL: undefined, RUNNER_SECRET_STORE_MODE: "aws-secrets-manager", RUNNER_SECRET_PREFIX: "runner/", RUNNER_AWS_ENDPOINT_URL: "http://127.0.0.1:9", AWS_ACCESS_KEY_ID: "AKIAFAKE000000000000", AWS_SECRET_ACCESS_KEY: "fake-secret-0000000000", AWS_EC2_METADATA_DISABLED: "true" };
    const f = agentFailure(await runnerAgent(["run", "grafana.logs.query", "--args", JSON.stringify({ query: '{a="b"}' })], env));
    expect(f.code).toBe("not_configured");
    expect(f.message).toContain("grafana.logs.query needs RUNNER_GRAFANA_LOKI_URL");
  });
});
