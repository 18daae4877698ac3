// `runner admin … migrate` and `RUNNER_DATABASE_URL=… runner admin import-sqlite FILE`: the schema
// upgrade and the one-way move from the embedded SQLite store to PostgreSQL (README "Scale-out").
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { missingStoreError } from "../store/open.ts";
import { migrate, schemaVersion } from "../store/postgres/database.ts";
import { PostgresStore } from "../store/postgres/postgres-store.ts";
import { openDatabase } from "../store/sqlite/database.ts";
import { MIGRATIONS } from "../store/sqlite/migrations.ts";

import { UsageError } from "./output.ts";

const out = (s: string): void => void process.stdout.write(`${s}\n`);

export const DATABASE_COMMANDS = ["migrate", "import-sqlite"] as const;

export async function databaseCommand(command: string, args: string[], loc: { data?: string; databaseUrl?: string }): Promise<void> {
  if (command === "migrate") {
    if (args.length) throw new UsageError("expected: runner admin --data DIR migrate, or with RUNNER_DATABASE_URL set: runner admin migrate");
    if (loc.databaseUrl) return migratePostgres(loc.databaseUrl);
    if (!loc.data) throw new UsageError("--data DIR or RUNNER_DATABASE_URL (or --database-url) is required");
    // Opening the SQLite file applies its migrations; a mistyped --data is not a store to create.
    if (!existsSync(`${loc.data}/runner.db`)) throw missingStoreError(loc.data);
    openDatabase(`${loc.data}/runner.db`).close();
    out(`SQLite schema at version ${MIGRATIONS.at(-1)!.version}`);
    return;
  }
  if (args.length !== 1 || !loc.databaseUrl) throw new UsageError("expected, with RUNNER_DATABASE_URL set to the PostgreSQL database: runner admin import-sqlite FILE");
  await importSqlite(args[0]!, loc.databaseUrl);
}

async function migratePostgres(url: string): Promise<void> {
  const store = new PostgresStore(url, { max: 1, migrate: false });
  try {
    const applied = await migrate(store.sql);
    const version = await schemaVersion(store.sql);
    out(applied.length ? `applied migration${applied.length > 1 ? "s" : ""} ${applied.join(", ")}; schema at version ${version}` : `schema already at version ${version}`);
  } finally {
    await store.sql.close();
  }
}

// Copy order follows the foreign keys. Columns are listed so a newer SQLite column never slips in unnoticed.
// Not copied: sign_in_failures (migration 4) — they age out within the throttle's 15-minute window.
const TABLES: Array<{ name: string; columns: string[]; identity?: boolean; since?: number }> = [
  { name: "orgs", columns: ["id", "name", "profiler_enabled", "created_at"], identity: true },
  { name: "capture_tokens", columns: ["id", "org_id", "name", "hash", "created_at", "revoked_at"], identity: true },
  { name: "bootstrap_tokens", columns: ["id", "org_id", "hash", "created_at", "revoked_at"], identity: true },
  {
    name: "capture_requests",
    columns: ["request_id", "org_id", "workload", "version", "env", "kind", "duration_sec", "warmup_sec", "requester", "status",
      "outcome", "reason", "instrumentation", "dedupe_key", "created_at", "updated_at"],
  },
  { name: "instances", columns: ["org_id", "instance_id", "class", "public_key", "enrolled_at", "last_enrolled_at"] },
  { name: "profiles", columns: ["request_id", "instance_id", "profile_gz", "created_at"] },
  { name: "diffs", columns: ["request_id", "compared_with", "compared_version", "note", "verdict", "json", "html", "created_at"] },
  { name: "users", columns: ["id", "org_id", "email", "role", "password_hash", "created_at"], identity: true, since: 3 },
  { name: "sessions", columns: ["hash", "user_id", "created_at", "expires_at"], since: 3 },
  { name: "read_tokens", columns: ["id", "org_id", "name", "hash", "workloads", "created_at", "revoked_at"], identity: true, since: 5 },
  { name: "retention_policies", columns: ["org_id", "head_days", "replicate_days", "keep_versions", "updated_at"], since: 6 },
  { name: "pruned_captures", columns: ["request_id", "org_id", "bytes", "pruned_at"], since: 6 },
];

async function importSqlite(file: string, url: string): Promise<void> {
  if (!existsSync(file)) throw new Error(`${file} does not exist (the SQLite store is DIR/runner.db)`);
  const src = new Database(file, { readonly: true, strict: true });
  const version = (src.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (version < 2) throw new Error(`${file} is at schema version ${version}; start the current server on it once (or run migrate) first`);
  const store = new PostgresStore(url, { max: 1 });
  try {
    await store.ready;
    const counts: string[] = [];
    await store.sql.begin(async (tx) => {
      const [{ n }] = await tx`SELECT count(*)::int AS n FROM orgs`;
      if (n > 0) throw new Error("the PostgreSQL database already has organizations; import only into an empty database");
      for (const t of TABLES) {
        if (t.since && version < t.since) continue;
        const rows = src.query(`SELECT ${t.columns.join(", ")} FROM ${t.name}`).all() as Array<Record<string, unknown>>;
        for (const row of rows) {
          if (t.name === "orgs") row.profiler_enabled = row.profiler_enabled === 1;
          // A request the SQLite server left running was never finished: the replicas dispatch it again.
          if (t.name === "capture_requests" && row.status === "running") row.status = "queued";
          if (t.name === "profiles") row.profile_gz = new Uint8Array(row.profile_gz as Uint8Array);
        }
        for (let i = 0; i < rows.length; i += 500) await tx`INSERT INTO ${tx(t.name)} ${tx(rows.slice(i, i + 500), ...t.columns)}`;
        if (t.identity && rows.length) {
          await tx.unsafe(`SELECT setval(pg_get_serial_sequence('${t.name}', 'id'), (SELECT max(id) FROM ${t.name}))`);
        }
        counts.push(`${t.name} ${rows.length}`);
      }
    });
    out(`imported ${counts.join(", ")}`);
  } finally {
    src.close();
    await store.close();
  }
}
