import { type TSchema, Type } from "@sinclair/typebox";
import type { MongoClient } from "mongodb";
import { type Connector, op, type Operation } from "../catalog.ts";
import type { AgentContext } from "../context.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { assertReadCommand } from "./mongodb-read-guard.ts";
import { limit, obj } from "./rest-op.ts";

// MongoDB (document database) through the official driver. MONGODB_URI (a secret: the URI embeds
// the credential of a dedicated read-only user); RUNNER_MONGODB_DATABASE (default: the URI's
// database). Every operation is one read command passed through assertReadCommand. The URI and its
// password are registered with the redactor and never used in a message: errors name the hosts.
// Each operation connects, runs and closes: the Agent holds no idle connection.

export interface MongoHandle {
  uri: string;
  hosts: string;
  database: string | undefined;
}

const READ_ROLE = (db: string) => `read on ${db}`;
const name = Type.String({ pattern: "^[^\\0$/\\\\. \"]{1,64}$" });
const coll = Type.String({ pattern: "^[^\\0$][^\\0]{0,119}$" });
const doc = Type.Record(Type.String(), Type.Unknown());

/** user:password@ parts of a mongodb:// or mongodb+srv:// URI, and its hosts and database. */
export function parseMongoUri(uri: string): { user?: string; password?: string; hosts: string; database?: string } {
  const m = /^mongodb(?:\+srv)?:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?]+)(?:\/([^?]*))?/.exec(uri);
  if (!m) throw new AgentError("not_configured", "MONGODB_URI is not a mongodb:// or mongodb+srv:// connection string");
  const dec = (s: string | undefined) => (s === undefined ? undefined : decodeURIComponent(s));
  return { user: dec(m[1]), password: dec(m[2]), hosts: m[3]!, database: dec(m[4]) || undefined };
}

async function withClient<T>(h: MongoHandle, fn: (c: MongoClient) => Promise<T>): Promise<T> {
  const { MongoClient } = await import("mongodb");
  let client: MongoClient;
  try {
    // Short timeouts by default (a health check should not hang); the URI's own values win.
    const timeouts = /[?&]serverSelectionTimeoutMS=/i.test(h.uri) ? {} : { serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000 };
    client = new MongoClient(h.uri, { appName: "runner-agent", ...timeouts, maxPoolSize: 1, retryWrites: false, retryReads: false });
  } catch {
    // The driver's parse errors may quote the URI: never pass them on.
    throw new AgentError("not_configured", "MONGODB_URI is not a valid connection string (driver refused it)");
  }
  try {
    await client.connect();
    return await fn(client);
  } catch (e) {
    throw explain(h, e);
  } finally {
    await client.close().catch(() => undefined);
  }
}

function explain(h: MongoHandle, e: unknown): unknown {
  if (e instanceof AgentError) return e;
  const err = e as { code?: number; codeName?: string; name?: string };
  const db = h.database ?? "the database";
  if (err.code === 18 || err.codeName === "AuthenticationFailed") {
    return new AgentError("permission", `MongoDB at ${h.hosts}: authentication failed for the user in MONGODB_URI`, { fix: "check the user and password embedded in MONGODB_URI (a dedicated read-only user)" });
  }
  if (err.code === 13 || err.codeName === "Unauthorized") {
    return new AgentError("permission", `MongoDB at ${h.hosts}: the URI's user is not authorized to read ${db}`, { missing: [READ_ROLE(db)], fix: `grant the role read on ${db} to the URI's read-only user (db.grantRolesToUser)` });
  }
  if (err.name === "MongoServerSelectionError" || err.name === "MongoNetworkError" || err.name === "MongoNetworkTimeoutError") {
    return new AgentError("upstream", `cannot reach MongoDB at ${h.hosts} (${err.name})`);
  }
  return new AgentError("upstream", `MongoDB at ${h.hosts} failed: ${err.codeName ?? err.name ?? "error"}`);
}

/** The one door to the server: the read guard first, then the command. */
async function runRead(h: MongoHandle, database: string | undefined, command: Record<string, unknown>): Promise<any> {
  assertReadCommand(command);
  const db = database ?? h.database;
  if (!db) throw new AgentError("invalid_arguments", "no database: pass `database` or set RUNNER_MONGODB_DATABASE (or put it in the URI)");
  return withClient({ ...h, database: db }, (c) => c.db(db).command(command));
}

interface Spec {
  name: string;
  summary: string;
  args: TSchema;
  example: any;
  command: (a: any) => Record<string, unknown>;
  result?: (r: any) => unknown;
}

const firstBatch = (r: any) => r?.cursor?.firstBatch ?? [];

function mOp(s: Spec): Operation<MongoHandle> {
  return op<MongoHandle, TSchema>({
    name: s.name,
    connector: "mongodb",
    access: "read",
    summary: s.summary,
    permission: { system: "platform", needs: ["read on the queried database (built-in role read)"] },
    args: s.args,
    example: s.example,
    run: async (h, a) => {
      const r = await runRead(h, (a as { database?: string }).database, s.command(a));
      return s.result ? s.result(r) : r;
    },
  });
}

const database = Type.Optional(name);

export const mongodbOperations: Operation<MongoHandle>[] = [
  mOp({ name: "mongodb.collections.list", summary: "collections of a database", args: obj({ database }), example: { database: "shop" }, command: () => ({ listCollections: 1, nameOnly: true, authorizedCollections: true }), result: (r) => firstBatch(r).map((c: any) => c.name) }),
  mOp({ name: "mongodb.find", summary: "documents matching a filter (at most 1000)", args: obj({ database, collection: coll, filter: Type.Optional(doc), projection: Type.Optional(doc), sort: Type.Optional(doc), limit: limit(1000) }), example: { database: "shop", collection: "orders", filter: { status: "failed" }, limit: 20 }, command: (a) => ({ find: a.collection, filter: a.filter ?? {}, ...(a.projection ? { projection: a.projection } : {}), ...(a.sort ? { sort: a.sort } : {}), limit: a.limit ?? 100, singleBatch: true }), result: firstBatch }),
  mOp({ name: "mongodb.aggregate", summary: "aggregation pipeline (read stages only; $out and $merge refused)", args: obj({ database, collection: coll, pipeline: Type.Array(doc, { maxItems: 50 }) }), example: { database: "shop", collection: "orders", pipeline: [{ $match: { status: "failed" } }, { $group: { _id: "$region", n: { $sum: 1 } } }] }, command: (a) => ({ aggregate: a.collection, pipeline: a.pipeline, cursor: { batchSize: 1000 } }), result: firstBatch }),
  mOp({ name: "mongodb.count", summary: "number of documents matching a filter", args: obj({ database, collection: coll, filter: Type.Optional(doc) }), example: { database: "shop", collection: "orders", filter: { status: "failed" } }, command: (a) => ({ count: a.collection, query: a.filter ?? {} }), result: (r) => ({ count: r.n }) }),
  mOp({ name: "mongodb.distinct", summary: "distinct values of a field", args: obj({ database, collection: coll, key: Type.String({ minLength: 1, maxLength: 200 }), filter: Type.Optional(doc) }), example: { database: "shop", collection: "orders", key: "region" }, command: (a) => ({ distinct: a.collection, key: a.key, query: a.filter ?? {} }), result: (r) => r.values }),
  mOp({ name: "mongodb.indexes.list", summary: "indexes of a collection", args: obj({ database, collection: coll }), example: { database: "shop", collection: "orders" }, command: (a) => ({ listIndexes: a.collection }), result: firstBatch }),
  mOp({ name: "mongodb.dbStats", summary: "database statistics", args: obj({ database }), example: { database: "shop" }, command: () => ({ dbStats: 1 }) }),
];

const WRITE_ACTIONS = ["insert", "update", "remove", "dropCollection", "dropDatabase", "createCollection", "createIndex"];

async function health(h: MongoHandle) {
  const db = h.database;
  return withClient(h, async (c) => {
    // Through the same door as every operation: only read commands reach the server.
    const command = { connectionStatus: 1, showPrivileges: true };
    assertReadCommand(command);
    const status = await c.db(db ?? "admin").command(command);
    const info = status.authInfo ?? {};
    const users: { user: string; db: string }[] = info.authenticatedUsers ?? [];
    const privileges: { resource: { db?: string; collection?: string; anyResource?: boolean }; actions: string[] }[] = info.authenticatedUserPrivileges ?? [];
    const who = users[0] ? `${users[0].user}@${users[0].db}` : "unauthenticated";
    const on = (p: (typeof privileges)[number]) => p.resource.anyResource || p.resource.db === "" || p.resource.db === db;
    if (db && !privileges.some((p) => on(p) && p.actions.includes("find"))) {
      throw new AgentError("permission", `MongoDB user ${who} cannot read ${db}`, { missing: [READ_ROLE(db)], fix: `grant the role read on ${db} to ${who}` });
    }
    const writes = [...new Set(privileges.filter((p) => !db || on(p)).flatMap((p) => p.actions.filter((a) => WRITE_ACTIONS.includes(a))))];
    if (writes.length) {
      throw new AgentError("permission", `MongoDB user ${who} can write (${writes.join(", ")}): the URI must embed a dedicated read-only user`, { fix: `create a user with only the role read on ${db ?? "the queried databases"} and put it in MONGODB_URI` });
    }
    return { status: "ok" as const, detail: `user ${who} reads ${db ?? "(set RUNNER_MONGODB_DATABASE to check a database)"} and cannot write` };
  });
}

export const mongodbConnector: Connector<MongoHandle> = {
  name: "mongodb",
  unconfigured: (ctx) => (ctx.env.MONGODB_URI || ctx.env.RUNNER_MONGODB_DATABASE ? null : "neither MONGODB_URI nor RUNNER_MONGODB_DATABASE is set"),
  async open(ctx: AgentContext) {
    const uri = await requireSecret(ctx, "MONGODB_URI", "a connection string embedding a read-only user");
    const parts = parseMongoUri(uri);
    ctx.redactor.add(parts.password);
    ctx.redactor.add(parts.password === undefined ? undefined : encodeURIComponent(parts.password));
    return { uri, hosts: parts.hosts, database: ctx.env.RUNNER_MONGODB_DATABASE || parts.database };
  },
  health,
  operations: mongodbOperations,
};
