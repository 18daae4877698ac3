// Picks the store from the command line: --data DIR (SQLite at DIR/runner.db, one server) or
// --database-url postgres://… (PostgreSQL, any number of server replicas).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "./store.ts";
import { SqliteStore } from "./sqlite/sqlite-store.ts";
import { PostgresStore } from "./postgres/postgres-store.ts";

export interface StoreLocation {
  data?: string;
  databaseUrl?: string;
}

export function openStore(loc: StoreLocation): Store {
  if (loc.databaseUrl) {
    if (!/^postgres(ql)?:\/\//.test(loc.databaseUrl)) {
      // Never echo the URL: it usually carries a password.
      throw new Error("--database-url must be a postgres:// or postgresql:// URL");
    }
    return new PostgresStore(loc.databaseUrl);
  }
  if (!loc.data) throw new Error("--data DIR is required (the SQLite store lives at DIR/runner.db), or --database-url for PostgreSQL");
  mkdirSync(loc.data, { recursive: true });
  return new SqliteStore(join(loc.data, "runner.db"));
}
