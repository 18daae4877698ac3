// MongoDB connector (official driver) against a minimal wire-protocol fake: only read commands
// reach the server, writing aggregation stages are refused before sending, missing read access is
// named, health flags a user that can write, and the URI's credential never appears — not in
// errors, health, results or the executable's output and logs, even when the server echoes it.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { mongodbConnector, parseMongoUri } from "../../src/agent/connectors/mongodb.ts";
import { assertReadCommand } from "../../src/agent/connectors/mongodb-read-guard.ts";
import { createAgentContext, type Env } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { AgentError } from "../../src/agent/errors.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { type MongoFake, startMongoFake } from "../fixtures/fakes/mongodb-wire.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";

setDefaultTimeout(30_000); // the driver's first import and connection on a loaded machine
const PASSWORD = "s3cret-P@ss/word";
let fake: MongoFake;
const catalog = new Catalog([mongodbConnector]);
// SCRAM-SHA-256 (the driver's default) unless PLAIN is asked for: only with PLAIN does the server
// see the password, which the hostile echo cases need.
const uriWith = (password: string, mechanism: "default" | "PLAIN" = "default") =>
  `mongodb://runner_ro:${encodeURIComponent(password)}@127.0.0.1:${fake.port}/shop?directConnection=true${mechanism === "PLAIN" ? "&authMechanism=PLAIN" : ""}`;
const ctx = (extra: Env = {}) => createAgentContext({ MONGODB_URI: uriWith(PASSWORD), ...extra }, pino({ level: "silent" }));

beforeAll(() => {
  fake = startMongoFake({ user: "runner_ro", password: PASSWORD, readable: ["shop"] });
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.reset();
  fake.options.extraActions = undefined;
  fake.options.echoPassword = false;
});
afterAll(() => fake.stop());

describe("MongoDB read-only", () => {
  test("every operation's example runs and sends exactly one read command", async () => {
    for (const o of catalog.operations()) {
      fake.reset();
      await enforceAndRun(catalog, o.name, o.example, ctx());
      const sent = fake.commands.filter((c) => !["saslStart", "saslContinue", "endSessions"].includes(c.name));
      expect(sent).toHaveLength(1);
      expect(sent[0]!.db).toBe("shop");
    }
  });

  test("the driver authenticates with SCRAM-SHA-256; a wrong password is refused as authentication, not permission", async () => {
    await enforceAndRun(catalog, "mongodb.dbStats", {}, ctx());
    expect(fake.commands.filter((c) => c.name.startsWith("sasl")).map((c) => [c.name, c.body.mechanism ?? null])).toEqual([
      ["saslStart", "SCRAM-SHA-256"],
      ["saslContinue", null],
    ]);
    const e = await refusal(enforceAndRun(catalog, "mongodb.dbStats", {}, ctx({ MONGODB_URI: uriWith("not-the-password") })));
    expect(e.message).toContain("authentication failed for the user in MONGODB_URI");
    expect(e.message).not.toContain("not-the-password");
  });

  test("find returns the documents matching the filter; count and distinct agree", async () => {
    expect(await enforceAndRun(catalog, "mongodb.find", { collection: "orders", filter: { status: "failed" } }, ctx())).toEqual([
      { _id: 1, status: "failed", region: "eu" },
      { _id: 3, status: "failed", region: "us" },
    ]);
    expect(await enforceAndRun(catalog, "mongodb.count", { collection: "orders", filter: { status: "failed" } }, ctx())).toEqual({ count: 2 });
    expect(await enforceAndRun(catalog, "mongodb.distinct", { collection: "orders", key: "region", filter: { status: "failed" } }, ctx())).toEqual(["eu", "us"]);
  });

  test("the guard accepts only read commands", () => {
    for (const w of [{ insert: "orders" }, { update: "orders" }, { delete: "orders" }, { findAndModify: "orders" }, { drop: "orders" }, { create: "x" }, { createIndexes: "orders" }, { dropDatabase: 1 }, { eval: "1" }, {}]) {
      expect(() => assertReadCommand(w)).toThrow(AgentError);
    }
    expect(assertReadCommand({ find: "orders" })).toBe("find");
  });

  test("$out and $merge are refused before sending, also nested in $facet or $lookup", async () => {
    const pipelines = [[{ $match: {} }, { $out: "copy" }], [{ $facet: { a: [{ $merge: { into: "x" } }] } }], [{ $lookup: { from: "x", pipeline: [{ $out: "y" }], as: "z" } }]];
    for (const pipeline of pipelines) {
      const e = await refusal(enforceAndRun(catalog, "mongodb.aggregate", { collection: "orders", pipeline }, ctx()));
      expect(e.code).toBe("invalid_query");
    }
    expect(fake.commands).toEqual([]); // not even a connection
  });

  test("a database the user cannot read names read on that database", async () => {
    const e = await refusal(enforceAndRun(catalog, "mongodb.find", { database: "billing", collection: "invoices" }, ctx()));
    expect(e.code).toBe("permission");
    expect(e.missing).toEqual(["read on billing"]);
  });

  test("health: ok for a read-only user; names read when the database is not readable; flags a user that can write", async () => {
    expect((await runHealth(catalog, ctx()))[0]).toMatchObject({ status: "ok", detail: "user runner_ro@admin reads shop and cannot write" });
    expect((await runHealth(catalog, ctx({ RUNNER_MONGODB_DATABASE: "billing" })))[0]).toMatchObject({ status: "error", missing: ["read on billing"] });
    fake.options.extraActions = ["insert", "update"];
    const [w] = await runHealth(catalog, ctx());
    expect(w!.status).toBe("error");
    expect(w!.detail).toContain("can write (insert, update): the URI must embed a dedicated read-only user");
    expect(fake.commands.every((c) => ["saslStart", "saslContinue", "endSessions", "connectionStatus"].includes(c.name))).toBe(true);
  });
});

describe("MongoDB credential", () => {
  test("the URI parser finds the password to redact, percent-decoded", () => {
    expect(parseMongoUri("mongodb+srv://u:p%40ss@cluster0.example.net/shop?retryWrites=false")).toEqual({ user: "u", password: "p@ss", hosts: "cluster0.example.net", database: "shop" });
  });

  test("a wrong password, echoed back by a hostile server, is not in the error or health", async () => {
    fake.options.echoPassword = true;
    const wrong = "wrong-Passw0rd!";
    const env = { MONGODB_URI: uriWith(wrong, "PLAIN") };
    const e = await refusal(enforceAndRun(catalog, "mongodb.find", { collection: "orders" }, createAgentContext(env, pino({ level: "silent" }))));
    expect(e.code).toBe("permission");
    expect(e.message).toContain("authentication failed for the user in MONGODB_URI");
    const [h] = await runHealth(catalog, createAgentContext(env, pino({ level: "silent" })));
    for (const text of [e.message, JSON.stringify(h)]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(encodeURIComponent(wrong));
      expect(text).not.toContain("mongodb://");
    }
  });

  test("an unreachable server is named by host, without the URI or its password", async () => {
    const e = await refusal(enforceAndRun(catalog, "mongodb.dbStats", {}, createAgentContext({ MONGODB_URI: `mongodb://runner_ro:${encodeURIComponent(PASSWORD)}@127.0.0.1:1/shop?directConnection=true&serverSelectionTimeoutMS=300` }, pino({ level: "silent" }))));
    expect(e.code).toBe("upstream");
    expect(e.message).toContain("127.0.0.1:1");
    expect(e.message).not.toContain(PASSWORD);
  });

  test("the executable: results, errors and debug logs never carry the credential", async () => {
    fake.options.echoPassword = true;
    for (const [password, code, mechanism] of [[PASSWORD, 0, "default"], ["wrong-Passw0rd!", 1, "PLAIN"]] as const) {
      const p = Bun.spawn([...runnerCommand(), "agent", "run", "mongodb.find", "--args", '{"collection":"orders","limit":1}'], {
        env: { PATH: process.env.PATH ?? "", HOME: "/tmp", RUNNER_LOG_LEVEL: "debug", MONGODB_URI: uriWith(password, mechanism) },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err, exit] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      expect(exit).toBe(code);
      const all = out + err;
      expect(all).not.toContain(password);
      expect(all).not.toContain(encodeURIComponent(password));
      if (code === 0) expect(JSON.parse(out)).toEqual([{ _id: 1, status: "failed", region: "eu" }]);
      else expect(err).toContain("runner agent: permission: MongoDB at 127.0.0.1");
    }
  });
});
