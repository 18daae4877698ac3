// Picks the store from the command line: --data DIR (SQLite at DIR/runner.db, one server) or
// --database-url postgres://… (PostgreSQL, any number of server replicas).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { prepareOwnerOnlyStore } from "../../store-permissions.ts";
import { SqliteStore } from "./sqlite/sqlite-store.ts";
import { PostgresStore } from "./postgres/postgres-store.ts";

export interface StoreLocation {
  data?: string;
  databaseUrl?: string;
  /**
   * Refuse a missing SQLite store instead of creating it: commands that read a store must not
   * turn a mistyped --data into a new empty one (and then report "organization does not exist").
   */
  mustExist?: boolean;
}

/** The error for a --data DIR that holds no store. */
export function missingStoreError(data: string): Error {
  const file = join(data, "runner.db");
  return new Error(`no store at ${file}: check --data (\`runner server --data ${data}\` or \`runner admin --data ${data} org create ORG\` creates one)`);
}

export const DATABASE_URL_ENV = "RUNNER_DATABASE_URL";

/**
 * The PostgreSQL URL the operator chose: --database-url, else RUNNER_DATABASE_URL unless --data
 * names a SQLite store. The URL usually carries a password and a command line is shown by `ps` to
 * every local user, so the flag still works but comes with a warning; the environment (from a file
 * only the service's user reads) does not.
 */
export function chosenDatabaseUrl(flag: string | undefined, data: string | undefined, env: NodeJS.ProcessEnv = process.env): { url?: string; warning?: string } {
  if (flag !== undefined) {
    return { url: flag, warning: `--database-url puts the database URL (and its password) in the command line, where ps shows it to every local user; set ${DATABASE_URL_ENV} instead` };
  }
  return { url: data === undefined ? env[DATABASE_URL_ENV] || undefined : undefined };
}

/** Either store is a `Store`; each also carries what its dispatcher needs (dispatch/create.ts). */
export function openStore(loc: StoreLocation): SqliteStore | PostgresStore {
  if (loc.databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(loc.databaseUrl)) {
      // Never echo the URL: it usually carries a password.
      throw new Error("--database-url must be a postgres:// or postgresql:// URL");
    }
    return new PostgresStore(loc.databaseUrl);
  }
  if (!loc.data) throw new Error(`--data DIR is required (the SQLite store lives at DIR/runner.db), or ${DATABASE_URL_ENV} (or --database-url) for PostgreSQL`);
  if (loc.mustExist && !existsSync(join(loc.data, "runner.db"))) throw missingStoreError(loc.data);
  prepareOwnerOnlyStore(loc.data);
  return new SqliteStore(join(loc.data, "runner.db"));
}
