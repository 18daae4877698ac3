// Picks the store from the command line: --data DIR (SQLite at DIR/runner.db) or --database-url.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "./store.ts";
import { SqliteStore } from "./sqlite/sqlite-store.ts";

export interface StoreLocation {
  data?: string;
  databaseUrl?: string;
}

export function openStore(loc: StoreLocation): Store {
  if (loc.databaseUrl) {
    // The Store interface and contract suite are ready for it; the implementation is a later issue.
    throw new Error("--database-url (PostgreSQL) is not supported yet; use --data DIR");
  }
  if (!loc.data) throw new Error("--data DIR is required (the SQLite store lives at DIR/runner.db)");
  mkdirSync(loc.data, { recursive: true });
  return new SqliteStore(join(loc.data, "runner.db"));
}
