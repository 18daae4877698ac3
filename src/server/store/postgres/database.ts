// Connects to PostgreSQL (Bun's built-in client) and brings the schema up to date.
import { SQL } from "bun";
import { PG_MIGRATIONS, type PgMigration } from "./migrations.ts";

// Any fixed 64-bit number works; it only has to be the same for every process migrating this schema.
const MIGRATION_LOCK = 0x72756e6e6572; // "runner"

export function connect(url: string, max = 20): SQL {
  // The URL carries the credentials; it is never logged or put in an error message.
  return new SQL(url, { max, idleTimeout: 30, connectionTimeout: 10 });
}

/** Applies every migration not yet recorded. Safe to run from several replicas at once. */
export async function migrate(sql: SQL, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<number[]> {
  // Under the lock too: CREATE TABLE IF NOT EXISTS is not atomic against itself. Two processes
  // creating it at once fail either on pg_type's unique index (23505) or with "type already
  // exists" (42710): a replica starting beside another on a fresh database then died with it.
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (
               version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`;
  });
  const applied: number[] = [];
  for (const m of migrations) {
    const done = await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      const [row] = await tx`SELECT 1 FROM schema_migrations WHERE version = ${m.version}`;
      if (row) return false;
      await tx.unsafe(m.sql);
      await tx`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${m.version}, ${m.name}, ${Date.now()})`;
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}

export async function schemaVersion(sql: SQL): Promise<number> {
  const [row] = await sql`SELECT coalesce(max(version), 0) AS v FROM schema_migrations`;
  return Number(row.v);
}
