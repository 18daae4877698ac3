// Slack connector against a local fake: reads with their bot scopes, the two catalogued writes
// reach Slack only when asked for, a missing scope is named, health lists missing read scopes as
// an error and missing write scopes as optional.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { slackConnector } from "../../src/agent/connectors/slack.ts";
import { createAgentContext } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { startSlackFake } from "../fixtures/fakes/slack.ts";

const TOKEN = "xoxb-0000000000-fakebottoken000000";
const ALL = ["channels:read", "groups:read", "channels:history", "groups:history", "chat:write", "channels:manage"];
let fake: ReturnType<typeof startSlackFake>;
const catalog = new Catalog([slackConnector]);
const ctx = (token = TOKEN) => createAgentContext({ SLACK_BOT_TOKEN: token, RUNNER_SLACK_API_URL: fake.url }, pino({ level: "silent" }));

beforeAll(() => {
  fake = startSlackFake(TOKEN, [...ALL]);
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.reset();
  fake.state.scopes = [...ALL];
});
afterAll(() => fake.stop());

describe("Slack", () => {
  test("the catalog has two reads and exactly the two chat writes, each with its bot scope", () => {
    const ops = catalog.operations().map((o) => [o.name, o.access, o.permission.needs.join(" ")]);
    expect(ops).toEqual([
      ["chat.createChannel", "write", "channels:manage"],
      ["chat.postMessage", "write", "chat:write"],
      ["slack.conversations.history", "read", "channels:history groups:history"],
      ["slack.conversations.list", "read", "channels:read groups:read"],
    ]);
  });

  test("reads are GETs and make no write", async () => {
    await enforceAndRun(catalog, "slack.conversations.list", {}, ctx());
    await enforceAndRun(catalog, "slack.conversations.history", { channel: "C0123456789" }, ctx());
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /conversations.list", "GET /conversations.history"]);
    expect(fake.writes).toEqual([]);
  });

  test("the two writes send exactly what was asked", async () => {
    await enforceAndRun(catalog, "chat.postMessage", { channel: "C0123456789", text: "hello" }, ctx());
    await enforceAndRun(catalog, "chat.createChannel", { name: "incident-42" }, ctx());
    expect(fake.writes.map((w) => [w.path, w.body])).toEqual([
      ["/chat.postMessage", { channel: "C0123456789", text: "hello" }],
      ["/conversations.create", { name: "incident-42", is_private: false }],
    ]);
  });

  test("a missing scope is named from Slack's `needed`", async () => {
    fake.state.scopes = ALL.filter((s) => s !== "chat:write");
    const e = await refusal(enforceAndRun(catalog, "chat.postMessage", { channel: "C0123456789", text: "x" }, ctx()));
    expect(e.code).toBe("permission");
    expect(e.missing).toEqual(["chat:write"]);
    expect(e.fix).toContain("reinstall the app");
  });

  test("a channel the bot is not in is explained", async () => {
    const e = await refusal(enforceAndRun(catalog, "slack.conversations.history", { channel: "C0NOTMEMBER" }, ctx()));
    expect(e.message).toContain("invite the bot");
  });

  test("health: read scopes missing is an error naming them; write scopes missing is optional", async () => {
    fake.state.scopes = ["channels:read", "channels:history", "chat:write"];
    const [bad] = await runHealth(catalog, ctx());
    expect(bad!.status).toBe("error");
    expect(bad!.missing).toEqual(["groups:read", "groups:history"]);
    fake.state.scopes = ["channels:read", "groups:read", "channels:history", "groups:history"];
    const [ok] = await runHealth(catalog, ctx());
    expect(ok!.status).toBe("ok");
    expect(ok!.missing).toEqual(["chat:write (optional)", "channels:manage (optional)"]);
    expect(ok!.detail).toContain("without chat:write, chat.postMessage is unavailable");
    expect(fake.writes).toEqual([]); // health never writes
  });

  test("an invalid token is reported without the token", async () => {
    const bogus = "xoxb-bogus-000000000000";
    const [h] = await runHealth(catalog, ctx(bogus));
    expect(h!.status).toBe("error");
    expect(h!.detail).toContain("invalid_auth");
    expect(JSON.stringify(h)).not.toContain(bogus);
  });
});
