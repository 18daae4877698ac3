// Datadog connector against a local multi-site fake: which key each request carries (validate:
// the API key alone, the site check of health and of a refused operation; every operation: both
// keys, as Datadog requires), application-key scopes per operation, and the wrong-regional-site
// 403 diagnosed as the site, before any scope is blamed.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { datadogConnector } from "../../src/agent/connectors/datadog.ts";
import { createAgentContext, type Env } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { type DatadogFake, startDatadogFake } from "../fixtures/fakes/datadog.ts";
import { agentFailure, agentHealth, runnerAgent } from "../helpers/runner-agent.ts";

const API_KEY = "ddapi0123456789abcdef0123456789ab";
const APP_KEY = "ddapp0123456789abcdef0123456789abcdef0123";
const ALL = ["logs_read_data", "logs_read_index_data", "apm_read", "monitors_read", "incident_read", "rum_apps_read", "synthetics_read", "api_keys_read"];
let fake: DatadogFake;
const catalog = new Catalog([datadogConnector]);
const env = (over: Env = {}): Env => ({ RUNNER_DATADOG_SITE: "datadoghq.eu", DATADOG_API_KEY: API_KEY, DATADOG_APP_KEY: APP_KEY, RUNNER_DATADOG_URL_TEMPLATE: fake.template, ...over });
const ctx = (e: Env) => createAgentContext(e, pino({ level: "silent" }));

beforeAll(() => {
  fake = startDatadogFake({ orgSite: "datadoghq.eu", apiKey: API_KEY, appKey: APP_KEY, scopes: [...ALL] });
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.requests.length = 0;
  fake.options.scopes = [...ALL];
});
afterAll(() => fake.stop());

describe("Datadog", () => {
  test("every operation runs with its example on the right site and a fully scoped key", async () => {
    for (const o of catalog.operations()) {
      const out = (await enforceAndRun(catalog, o.name, o.example, ctx(env()))) as { path: string };
      expect(out.path).toStartWith("/api/");
    }
    expect(fake.requests.every((r) => r.site === "datadoghq.eu")).toBe(true);
  });

  test("health uses the API key alone at /api/v1/validate, then checks monitors_read", async () => {
    const [h] = await runHealth(catalog, ctx(env()));
    expect(h).toEqual({ connector: "datadog", status: "ok", detail: "API key valid on datadoghq.eu; application key reads monitors" });
    const apiKeyOnly = fake.requests.filter((r) => r.apiKeyOnly);
    expect(apiKeyOnly.map((r) => r.path)).toEqual(["/api/v1/validate"]);
    expect(fake.requests.filter((r) => r.path === "/api/v1/validate").every((r) => r.apiKeyOnly)).toBe(true);
  });

  test("a valid key on the wrong regional site: health names the site to set", async () => {
    const [h] = await runHealth(catalog, ctx(env({ RUNNER_DATADOG_SITE: "datadoghq.com" })));
    expect(h!.status).toBe("error");
    expect(h!.detail).toContain("the API key is valid on datadoghq.eu");
    expect(h!.detail).toContain("Set RUNNER_DATADOG_SITE=datadoghq.eu");
    expect(h!.fix).toBe("set RUNNER_DATADOG_SITE=datadoghq.eu"); // the health table's fix column
    expect(h!.detail).not.toContain(API_KEY);
  });

  test("wrong site is diagnosed before scopes, even when a scope is also missing", async () => {
    fake.options.scopes = ALL.filter((s) => s !== "monitors_read");
    const [h] = await runHealth(catalog, ctx(env({ RUNNER_DATADOG_SITE: "us5.datadoghq.com" })));
    expect(h!.status).toBe("error");
    expect(h!.detail).toContain("Set RUNNER_DATADOG_SITE=datadoghq.eu");
    expect(h!.detail).not.toContain("lacks scope");
  });

  test("on the right site, a missing scope names the scope of that operation", async () => {
    const cases: [string, unknown, string][] = [
      ["datadog.logs.search", { query: "*", from: "now-1h" }, "logs_read_data + logs_read_index_data"],
      ["datadog.traces.search", { query: "*", from: "now-1h" }, "apm_read"],
      ["datadog.monitors.list", {}, "monitors_read"],
      ["datadog.incidents.list", {}, "incident_read"],
      ["datadog.rum.search", { query: "*", from: "now-1h" }, "rum_apps_read"],
      ["datadog.synthetics.list", {}, "synthetics_read"],
      ["datadog.security.apiKeys", {}, "api_keys_read"],
    ];
    fake.options.scopes = [];
    for (const [name, args, scope] of cases) {
      const e = await refusal(enforceAndRun(catalog, name, args, ctx(env())));
      expect(e.code).toBe("permission");
      expect(e.message).toContain(`lacks scope ${scope}`);
    }
    // Metrics need no scope at all.
    expect(await enforceAndRun(catalog, "datadog.metrics.query", { query: "avg:x{*}", from: 1, to: 2 }, ctx(env()))).toBeTruthy();
  });

  test("health reports a key without monitors_read (always required)", async () => {
    fake.options.scopes = ALL.filter((s) => s !== "monitors_read");
    const [h] = await runHealth(catalog, ctx(env()));
    expect(h!.status).toBe("error");
    expect(h!.detail).toContain("lacks scope monitors_read");
  });

  test("health without DATADOG_APP_KEY needs action: monitors_read is required always", async () => {
    const [h] = await runHealth(catalog, ctx(env({ DATADOG_APP_KEY: undefined })));
    expect(h).toMatchObject({ status: "error", missing: ["monitors_read"] });
    expect(h!.detail).toContain("DATADOG_APP_KEY is not set");
    expect(h!.fix).toContain("application key with scope monitors_read");
  });

  test("an operation on the wrong site is diagnosed as the site: no scope is named", async () => {
    const e = await refusal(enforceAndRun(catalog, "datadog.monitors.list", {}, ctx(env({ RUNNER_DATADOG_SITE: "datadoghq.com" }))));
    expect(e.code).toBe("misconfigured");
    expect(e.message).toContain("Set RUNNER_DATADOG_SITE=datadoghq.eu");
    expect(e.message).not.toContain("scope monitors_read");
    expect(e.missing).toBeUndefined();
    expect(e.fix).toBe("set RUNNER_DATADOG_SITE=datadoghq.eu");
  });

  test("an invalid API key is reported as invalid everywhere, not as the site", async () => {
    const [h] = await runHealth(catalog, ctx(env({ DATADOG_API_KEY: "ddapi-revoked-000000000000" })));
    expect(h!.status).toBe("error");
    expect(h!.detail).toContain("invalid or revoked");
    expect(h!.detail).not.toContain("ddapi-revoked");
  });

  test("unconfigured: skipped, and operations say what to set", async () => {
    const [h] = await runHealth(catalog, ctx({}));
    expect(h).toEqual({ connector: "datadog", status: "skipped", detail: "neither RUNNER_DATADOG_SITE nor DATADOG_API_KEY is set" });
    const e = await refusal(enforceAndRun(catalog, "datadog.monitors.list", {}, ctx(env({ DATADOG_APP_KEY: undefined }))));
    expect(e.code).toBe("not_configured");
    expect(e.message).toContain("DATADOG_APP_KEY");
  });
});

// The compiled `runner agent`, every request observed with the headers it carried.
describe("Datadog: which credential each request carries (dist/runner)", () => {
  const agentEnv = (over: Record<string, string | undefined> = {}) => ({ RUNNER_DATADOG_SITE: "datadoghq.eu", DATADOG_API_KEY: API_KEY, DATADOG_APP_KEY: APP_KEY, RUNNER_DATADOG_URL_TEMPLATE: fake.template, ...over });
  const shapes = () => fake.requests.map((r) => ({ path: r.path, api: r.apiKey === API_KEY, app: r.appKey === APP_KEY, other: r.apiKey !== null && r.apiKey !== API_KEY }));

  test("health: /api/v1/validate with the API key alone, then the monitors read with both keys", async () => {
    const h = await agentHealth(agentEnv());
    expect(h.code).toBe(0);
    expect(shapes()).toEqual([
      { path: "/api/v1/validate", api: true, app: false, other: false },
      { path: "/api/v1/monitor", api: true, app: true, other: false },
    ]);
  });

  test("every operation: both keys on its one request, and no validate", async () => {
    for (const o of catalog.operations()) {
      fake.requests.length = 0;
      const r = await runnerAgent(["run", o.name, "--args", JSON.stringify(o.example)], agentEnv());
      expect(r.code).toBe(0);
      expect(fake.requests.map((q) => ({ site: q.site, path: q.path, apiKey: q.apiKey, appKey: q.appKey }))).toEqual([
        { site: "datadoghq.eu", path: fake.requests[0]!.path, apiKey: API_KEY, appKey: APP_KEY },
      ]);
      expect(fake.requests[0]!.path).not.toBe("/api/v1/validate");
    }
  });

  test("health without DATADOG_APP_KEY exits 1 and names monitors_read", async () => {
    const h = await agentHealth(agentEnv({ DATADOG_APP_KEY: undefined }));
    expect(h.code).toBe(1);
    expect(h.of("datadog")).toMatchObject({ status: "error", missing: ["monitors_read"] });
  });

  test("a refused operation checks the site with the API key alone, then names the scope", async () => {
    fake.options.scopes = ALL.filter((s) => s !== "monitors_read");
    const r = await runnerAgent(["run", "datadog.monitors.list", "--args", "{}"], agentEnv());
    expect(r.code).toBe(1);
    const f = agentFailure(r);
    expect(f.code).toBe("permission");
    expect(f.message).toContain("on datadoghq.eu, where the API key is valid: the application key lacks scope monitors_read");
    expect(r.stderr).not.toContain(API_KEY);
    expect(fake.requests.map((q) => `${q.site}${q.path} ${q.apiKeyOnly ? "API key alone" : "both keys"}`)).toEqual(["datadoghq.eu/api/v1/monitor both keys", "datadoghq.eu/api/v1/validate API key alone"]);
  });

  test("an operation on the wrong site, with every scope, is refused as the wrong site", async () => {
    const r = await runnerAgent(["run", "datadog.monitors.list", "--args", "{}"], agentEnv({ RUNNER_DATADOG_SITE: "datadoghq.com" }));
    expect(r.code).toBe(1);
    const f = agentFailure(r);
    expect(f.code).toBe("misconfigured");
    expect(f.message).toContain("Set RUNNER_DATADOG_SITE=datadoghq.eu");
    expect(f.message).not.toContain("lacks scope");
    // Only validate, with the API key alone, looks at the other sites.
    expect(fake.requests.filter((q) => q.site !== "datadoghq.com").every((q) => q.path === "/api/v1/validate" && q.apiKeyOnly)).toBe(true);
  });

  test("on the wrong site, only health looks for the right one, with the API key alone", async () => {
    const h = await agentHealth(agentEnv({ RUNNER_DATADOG_SITE: "datadoghq.com" }));
    expect(h.code).toBe(1);
    expect(h.of("datadog").detail).toContain("Set RUNNER_DATADOG_SITE=datadoghq.eu");
    expect(fake.requests.every((q) => q.path === "/api/v1/validate" && q.apiKey === API_KEY && q.appKey === null)).toBe(true);
  });
});
