// The dispatcher of several replicas (cluster-dispatcher.ts) on a real PostgreSQL: the dispatcher
// contract shared with the SQLite one (dispatcher-contract.ts), run as the server runs it (one
// replica, LISTEN/NOTIFY, leases, the store's timers). Needs RUNNER_TEST_DATABASE_URL.
import { afterAll, beforeAll } from "bun:test";
import { PostgresStore } from "../../src/server/store/postgres/postgres-store.ts";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";
import { describeUnless } from "../helpers/skip.ts";
import { dispatcherContract } from "./dispatcher-contract.ts";

const base = postgresUrl();
const TABLES = "pruned_captures, retention_policies, sign_in_failures, sessions, users, dispatch_orders, tunnel_sessions, replicas, diffs, profiles, instances, capture_requests, bootstrap_tokens, capture_tokens, read_tokens, orgs";

let db: { url: string; drop(): Promise<void> };
beforeAll(async () => {
  if (base) db = await createTestDatabase(base, "dispatcher");
});
afterAll(async () => {
  await db?.drop();
});

describeUnless(base ? null : "RUNNER_TEST_DATABASE_URL is not set (.ci/run starts a PostgreSQL)")("PostgreSQL", () => {
  dispatcherContract("postgres (cluster dispatcher)", async () => {
    const store = new PostgresStore(db.url, { max: 8 });
    await store.ready;
    for (const t of TABLES.split(", ")) await store.sql.unsafe(`DELETE FROM ${t}`);
    return { store, cleanup: () => store.close() };
  });
});
