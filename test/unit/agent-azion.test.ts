// Azion against a local fake: workspace reads, metrics/events GraphQL over POST as query
// transport only — a mutation or subscription is refused before it is sent — and health naming
// each missing read access.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { azionConnector } from "../../src/agent/connectors/azion.ts";
import { createAgentContext } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { AZION_GRANTS, startAzionFake } from "../fixtures/fakes/azion.ts";

const TOKEN = "azion_fake_personal_token_00000000";
let fake: ReturnType<typeof startAzionFake>;
const catalog = new Catalog([azionConnector]);
const ctx = (token = TOKEN) => createAgentContext({ AZION_TOKEN: token, RUNNER_AZION_URL: fake.url }, pino({ level: "silent" }));

beforeAll(() => {
  fake = startAzionFake(TOKEN, [...AZION_GRANTS]);
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.reset();
  fake.state.grants = [...AZION_GRANTS];
});
afterAll(() => fake.stop());

describe("Azion", () => {
  test("every operation's example: three workspace GETs and two GraphQL queries over POST", async () => {
    for (const o of catalog.operations()) {
      expect(o.access).toBe("read");
      await enforceAndRun(catalog, o.name, o.example, ctx());
    }
    expect(fake.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      "GET /v4/workspace/applications",
      "GET /v4/workspace/connectors",
      "GET /v4/workspace/workloads",
      "POST /v4/events/graphql",
      "POST /v4/metrics/graphql",
    ]);
    expect(fake.writes).toEqual([]);
  });

  test("a mutation or subscription is refused before anything is sent, also when hidden after a query", async () => {
    const docs = [
      "mutation { purgeCache(urls: [\"https://octo.example/\"]) { ok } }",
      "subscription { httpEvents { ts } }",
      "query A { httpMetrics { ts } }\nmutation B { deleteApp(id: 1) { ok } }",
      "type Query { x: Int }",
    ];
    for (const query of docs) {
      const e = await refusal(enforceAndRun(catalog, "azion.metrics.query", { query }, ctx()));
      expect(e.code).toBe("invalid_query");
      expect(e.message).toContain("only queries are sent");
    }
    const bad = await refusal(enforceAndRun(catalog, "azion.events.query", { query: "query { unclosed" }, ctx()));
    expect(bad.code).toBe("invalid_query");
    expect(fake.requests).toEqual([]);
  });

  test("a query whose strings mention 'mutation' is still a query", async () => {
    await enforceAndRun(catalog, "azion.events.query", { query: 'query { httpEvents(filter: { requestUriLike: "%/mutation%" }) { ts } }' }, ctx());
  });

  test("missing read access is named per operation and listed by health", async () => {
    fake.state.grants = ["applications", "connectors", "workloads"];
    const e = await refusal(enforceAndRun(catalog, "azion.metrics.query", { query: "{ httpMetrics { ts } }" }, ctx()));
    expect(e.missing).toEqual(["read: Metrics GraphQL API"]);
    const [h] = await runHealth(catalog, ctx());
    expect(h).toMatchObject({ status: "error", missing: ["read: Metrics GraphQL API", "read: Events GraphQL API"] });
    fake.state.grants = [...AZION_GRANTS];
    expect((await runHealth(catalog, ctx()))[0]!.status).toBe("ok");
  });

  test("an invalid token is named, not shown", async () => {
    const [h] = await runHealth(catalog, ctx("azion_bogus_token_0000000"));
    expect(h!.detail).toContain("AZION_TOKEN is invalid");
    expect(JSON.stringify(h)).not.toContain("azion_bogus");
  });
});
