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
