// Parity: the same script of calls on the SQLite store and on the PostgreSQL store gives the same
// answers, for the groups the contract suite does not cover (members and sessions, enrolled
// instances, the Profiling page queries, profiles and diffs). Then `import-sqlite` copies that
// SQLite file into an empty PostgreSQL database and every read answers as it did on SQLite.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "../../src/server/store/store.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { PostgresStore } from "../../src/server/store/postgres/postgres-store.ts";
import { PG_MIGRATIONS } from "../../src/server/store/postgres/migrations.ts";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";

const base = postgresUrl();
const d = base ? describe : describe.skip;
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

/** Writes a history through the Store interface; returns every read's answer, errors as their code. */
async function script(s: Store): Promise<{ writes: unknown[]; reads: () => Promise<unknown[]> }> {
  const code = (p: Promise<unknown>) => p.then((v) => v, (e: { code?: string }) => ({ error: e.code ?? String(e) }));
  const w: unknown[] = [];
  const acme = await s.createOrg("acme", T0);
  await s.createOrg("other", T0);
  w.push(await code(s.createUser("acme", "Bob@Example.com", "owner", "hash-b", T0)));
  w.push(await code(s.createUser("acme", "alice@example.com", "member", "hash-a", T0 + 1)));
  w.push(await code(s.createUser("acme", "bob@example.com", "admin", "hash-x", T0 + 2))); // same email, other case
  w.push(await code(s.createUser("nope", "x@example.com", "member", "h", T0)));
  const bob = (await s.findUserCredentials("acme", "bob@example.com"))!;
  await s.createSession(bob.id, "s1", T0 + HOUR, T0);
  await s.createSession(bob.id, "s2", T0 + 10, T0);
  await s.createSession(bob.id, "s3", T0 + 2 * HOUR, T0);
  await s.deleteSession("s3");
  w.push(await s.pruneSessions(T0 + 10));
  w.push(await s.enrolInstance(acme.id, "node-b", "profiler", "key-b", T0));
  w.push(await s.enrolInstance(acme.id, "node-a", "profiler", "key-a", T0 + 5));
  w.push(await s.enrolInstance(acme.id, "node-a", "profiler", "key-a", T0 + 6));
  w.push(await code(s.enrolInstance(acme.id, "node-a", "profiler", "key-other", T0 + 7)));
  w.push(await code(s.enrolInstance(acme.id, "node-a", "agent", "key-a", T0 + 7)));
  await s.addReadToken("acme", "gate", "rh1", ["shop"], T0);
  const ids: string[] = [];
  const cases = [
    ["shop", "prod", "1.0", "head"], ["shop", "prod", "1.0", "replicate"], ["shop", "", "1.1", "head"],
    ["Cart", "prod", "2.0", "head"], ["cart", "staging", "2.0", "head"], ["shop", "prod", "1.1", "head"],
  ] as const;
  for (const [i, [workload, env, version, kind]] of cases.entries()) {
    const r = await s.queueCapture(acme.id, i % 2 ? "ci" : "alice@example.com", { workload, env, version, kind, durationSec: 30, warmupSec: 2 },
      { limit: 20, windowMs: HOUR, now: T0 + 100 + (i < 4 ? i : 3) }); // two share a timestamp: the page key needs the id
    if (r.kind === "rate_limited") throw new Error("unexpected");
    ids.push(r.requestId);
  }
  for (const id of ids.slice(0, 3)) {
    await s.markCaptureRunning(id, T0 + 200);
    await s.completeCapture(id, { outcome: "pushed", reason: null, instrumentation: { probes_requested: 2, probes_attached: 2, missing: [] } }, T0 + 300);
  }
  await s.saveProfile(ids[0]!, new Uint8Array([1, 2, 3]), "node-a", T0 + 400);
  await s.saveProfile(ids[2]!, new Uint8Array([4]), "node-b", T0 + 500);
  await s.saveDiff({ requestId: ids[2]!, comparedWith: { requestId: ids[0]!, version: "1.0" }, note: "n", verdict: "regressed", json: "{}", html: "<p>", createdAt: T0 + 600 });
  const reads = async () => {
    const norm = (v: unknown) => JSON.parse(JSON.stringify(v, (k, x) => (k === "requestId" || k === "request_id" ? (ids.indexOf(x) >= 0 ? `#${ids.indexOf(x)}` : x) : x)));
    const page1 = await s.queryCaptures("acme", { limit: 3 });
    const last = page1.at(-1)!;
    const r: unknown[] = [
      await s.listUsers("acme"),
      await code(s.listUsers("nope")),
      (await s.findUserCredentials("acme", "ALICE@example.com"))?.passwordHash,
      await s.findUserCredentials("other", "alice@example.com"),
      await s.findSession("s1", T0 + 20),
      await s.findSession("s1", T0 + HOUR),
      await s.findSession("s2", T0),
      await s.findSession("s3", T0),
      await s.listInstances("acme"),
      await s.findInstance("acme", "node-a"),
      page1,
      await s.queryCaptures("acme", { limit: 3, before: { createdAt: last.createdAt, requestId: last.requestId } }),
      await s.queryCaptures("acme", { limit: 10, workload: "shop", env: "prod" }),
      await s.queryCaptures("acme", { limit: 10, env: "" }),
      await s.captureFacets("acme"),
      await s.captureFacets("other"),
      await s.lastRequestBy("acme", "ci", T0, null),
      await s.lastRequestBy("acme", "ci", T0, T0 + 101),
      await s.lastRequestBy("acme", "nobody", T0, null),
      await code(s.lastRequestBy("nope", "ci", T0, null)),
      Array.from((await s.getProfile(ids[0]!)) ?? []),
      await s.getProfile(ids[1]!),
      await s.getDiff(ids[2]!),
      await s.findBaseline("acme", "shop", "prod", "1.1", T0 + 10_000),
      await s.listPushedOfVersion("acme", "shop", "prod", "1.0"),
      await s.listCaptureTokens("acme"),
      await s.listReadTokens("acme"),
    ];
    return norm(r) as unknown[];
  };
  const norm = (v: unknown) => JSON.parse(JSON.stringify(v));
  return { writes: norm(w), reads };
}

let pg: { url: string; drop(): Promise<void> };
let imported: { url: string; drop(): Promise<void> };
const dir = mkdtempSync(join(tmpdir(), "runner-parity-"));
beforeAll(async () => {
  if (!base) return;
  pg = await createTestDatabase(base, "parity");
  imported = await createTestDatabase(base, "import");
});
afterAll(async () => {
  await pg?.drop();
  await imported?.drop();
  rmSync(dir, { recursive: true, force: true });
});

d("PostgreSQL answers as SQLite does", () => {
  test("members, sessions, instances, Profiling page queries, profiles and diffs; then import-sqlite", async () => {
    const sqlite = new SqliteStore(join(dir, "runner.db"));
    const postgres = new PostgresStore(pg.url, { max: 4 });
    const a = await script(sqlite);
    const b = await script(postgres);
    expect(b.writes).toEqual(a.writes);
    const expected = await a.reads();
    expect(await b.reads()).toEqual(expected);
    await postgres.close();

    // the upgrade path: copy the SQLite file into an empty PostgreSQL database
    await sqlite.close();
    // The URL (and its password) from the environment, as the guide says: nothing in argv, no warning.
    const run = (args: string[]) => Bun.spawnSync([...runnerCommand(), "admin", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, RUNNER_DATABASE_URL: imported.url } });
    const m = run(["migrate"]);
    expect(m.stderr.toString()).toBe("");
    const versions = PG_MIGRATIONS.map((x) => x.version);
    expect(m.stdout.toString()).toStartWith(`applied migrations ${versions.join(", ")}; schema at version ${versions.at(-1)}`);
    const imp = run(["import-sqlite", join(dir, "runner.db")]);
    expect(imp.exitCode).toBe(0);
    expect(imp.stdout.toString()).toContain("orgs 2, capture_tokens 0, bootstrap_tokens 0, capture_requests 6, instances 2, profiles 2, diffs 1, users 2, sessions 1, read_tokens 1");
    // --database-url still works, and warns that ps shows it (never echoing it).
    const flagged = Bun.spawnSync([...runnerCommand(), "admin", "--database-url", imported.url, "migrate"], { stdout: "pipe", stderr: "pipe" });
    expect({ code: flagged.exitCode, err: flagged.stderr.toString() }).toEqual({ code: 0, err: "runner admin: warning: --database-url puts the database URL (and its password) in the command line, where ps shows it to every local user; set RUNNER_DATABASE_URL instead\n" });
    const again = run(["import-sqlite", join(dir, "runner.db")]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr.toString()).toContain("already has organizations");
    expect(again.stderr.toString()).not.toContain(imported.url); // the URL may carry a password
    const copy = new PostgresStore(imported.url, { max: 4 });
    // request ids are the same rows now, so compare the raw reads of the copy with SQLite's
    const s2 = new SqliteStore(join(dir, "runner.db"));
    const ids = (await s2.queryCaptures("acme", { limit: 10 })).map((r) => r.requestId);
    expect((await copy.queryCaptures("acme", { limit: 10 })).map((r) => r.requestId)).toEqual(ids);
    expect(await copy.listUsers("acme")).toEqual(await s2.listUsers("acme"));
    expect(await copy.findSession("s1", T0 + 20)).toEqual(await s2.findSession("s1", T0 + 20));
    expect(await copy.listInstances("acme")).toEqual(await s2.listInstances("acme"));
    expect(await copy.findReadToken("rh1")).toEqual(await s2.findReadToken("rh1"));
    expect(await copy.getDiff(ids.at(-3)!)).toEqual(await s2.getDiff(ids.at(-3)!));
    // identities continue after the imported ids
    expect((await copy.createOrg("third")).id).toBe(3);
    await copy.close();
    await s2.close();
  }, 60_000);
});
