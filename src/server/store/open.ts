// Picks the store from the command line: --data DIR (SQLite at DIR/runner.db, one server) or
// --database-url postgres://… (PostgreSQL, any number of server replicas).
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
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

/** Either store is a `Store`; each also carries what its dispatcher needs (dispatch/create.ts). */
export function openStore(loc: StoreLocation): SqliteStore | PostgresStore {
  if (loc.databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(loc.databaseUrl)) {
      // Never echo the URL: it usually carries a password.
      throw new Error("--database-url must be a postgres:// or postgresql:// URL");
    }
    return new PostgresStore(loc.databaseUrl);
  }
  if (!loc.data) throw new Error("--data DIR is required (the SQLite store lives at DIR/runner.db), or --database-url for PostgreSQL");
  if (loc.mustExist && !existsSync(join(loc.data, "runner.db"))) throw missingStoreError(loc.data);
  mkdirSync(loc.data, { recursive: true });
  return new SqliteStore(join(loc.data, "runner.db"));
}
