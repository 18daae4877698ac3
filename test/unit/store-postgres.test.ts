// The PostgreSQL store: the shared contract suite, plus what only a shared server store must show —
// migrations applied once when replicas start together, and an exact limit and dedupe across
// processes with their own connection pools.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { PostgresStore } from "../../src/server/store/postgres/postgres-store.ts";
import { PG_MIGRATIONS } from "../../src/server/store/postgres/migrations.ts";
import { migrate, schemaVersion } from "../../src/server/store/postgres/database.ts";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";
import { storeContract } from "./store-contract.ts";

const base = postgresUrl();
const d = base ? describe : describe.skip;

let db: { url: string; drop(): Promise<void> };
beforeAll(async () => {
  if (base) db = await createTestDatabase(base, "contract");
});
afterAll(async () => {
  await db?.drop();
});

const TABLES = "pruned_captures, retention_policies, sign_in_failures, sessions, users, dispatch_orders, tunnel_sessions, replicas, diffs, profiles, instances, capture_requests, bootstrap_tokens, capture_tokens, read_tokens, orgs";

if (base) {
  storeContract("postgres", async () => {
    const store = new PostgresStore(db.url, { max: 8 });
    await store.ready;
    // a fresh store for every test: empty tables (DELETE: TRUNCATE costs an fsync per table)
    for (const t of TABLES.split(", ")) await store.sql.unsafe(`DELETE FROM ${t}`);
    return { store, cleanup: () => store.close() };
  });
}

d("PostgresStore on a server", () => {
  test("migrations: five processes starting together apply each one exactly once", async () => {
    const fresh = await createTestDatabase(base!, "migrate");
    try {
      const dbModule = resolve(import.meta.dir, "../../src/server/store/postgres/database.ts");
      const script = `
        const { connect, migrate } = await import(${JSON.stringify(dbModule)});
        const sql = connect(process.env.URL, 2);
        console.log(JSON.stringify(await migrate(sql)));
        await sql.close();`;
      const procs = Array.from({ length: 5 }, () =>
        Bun.spawn([process.execPath, "-e", script], { env: { ...process.env, URL: fresh.url }, stdout: "pipe", stderr: "inherit" }),
      );
      const applied = (await Promise.all(procs.map(async (p) => JSON.parse(await new Response(p.stdout).text()) as number[]))).flat();
      expect(applied.sort()).toEqual(PG_MIGRATIONS.map((m) => m.version));
      const s = new PostgresStore(fresh.url, { max: 2 });
      await s.ready;
      expect(await schemaVersion(s.sql)).toBe(PG_MIGRATIONS.at(-1)!.version);
      expect(await migrate(s.sql)).toEqual([]); // nothing left to do
      await s.close();
    } finally {
      await fresh.drop();
    }
  }, 60_000);

  test("the hourly limit and the dedupe are exact across 4 processes racing on one database", async () => {
    const fresh = await createTestDatabase(base!, "race");
    try {
      const s = new PostgresStore(fresh.url, { max: 2 });
      const orgId = (await s.createOrg("acme")).id;
      await s.close();
      const storeModule = resolve(import.meta.dir, "../../src/server/store/postgres/postgres-store.ts");
      const script = `
        const { PostgresStore } = await import(${JSON.stringify(storeModule)});
        const s = new PostgresStore(process.env.URL, { max: 8 });
        const policy = () => ({ limit: 20, windowMs: 3600000, now: Date.now() });
        const req = (v) => ({ workload: "w", version: v, env: "", kind: "head", durationSec: 60, warmupSec: 5 });
        // 25 copies of one request shared by all processes, sent first so that one of them is
        // admitted before the distinct ones fill the hour, then 25 distinct versions per process
        const same = Array.from({ length: 25 }, () => s.queueCapture(${orgId}, "ci", req("shared"), policy()));
        const distinct = Array.from({ length: 25 }, (_, i) => s.queueCapture(${orgId}, "ci", req(process.env.P + "-" + i), policy()));
        const out = await Promise.all([...same, ...distinct]);
        console.log(JSON.stringify(out));
        await s.close();`;
      const procs = [0, 1, 2, 3].map((p) =>
        Bun.spawn([process.execPath, "-e", script], { env: { ...process.env, URL: fresh.url, P: String(p) }, stdout: "pipe", stderr: "inherit" }),
      );
      const results = (await Promise.all(procs.map(async (p) => JSON.parse(await new Response(p.stdout).text()) as Array<{ kind: string; requestId?: string }>))).flat();
      expect(results).toHaveLength(200);
      const queued = results.filter((r) => r.kind === "queued");
      expect(queued).toHaveLength(20);
      // every "shared" answer that was not refused names one and the same request
      const check = new PostgresStore(fresh.url, { max: 2 });
      const records = await check.listCaptures("acme");
      expect(records).toHaveLength(20);
      expect(records.filter((r) => r.version === "shared")).toHaveLength(1);
      const sharedIds = new Set(
        results.filter((r) => r.kind !== "rate_limited").map((r) => r.requestId).filter((id) => records.find((x) => x.requestId === id)?.version === "shared"),
      );
      expect(sharedIds.size).toBe(1);
      await check.close();
    } finally {
      await fresh.drop();
    }
  }, 60_000);
});
