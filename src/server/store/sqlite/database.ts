// Opens the SQLite file with the settings every process touching it (server, admin) must share,
// and brings the schema up to date.
import { Database } from "bun:sqlite";
import { MIGRATIONS, type Migration } from "./migrations.ts";

export function openDatabase(path: string, migrations: readonly Migration[] = MIGRATIONS): Database {
  const db = new Database(path, { create: true, strict: true });
  // busy_timeout first: the admin CLI and the server may open the file at the same moment.
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA journal_mode = WAL");
  // FULL: a commit is fsynced before we answer 202, so an acknowledged request survives power loss.
  // Only writes pay for it, and writes are capped at 20 per org per hour.
  db.exec("PRAGMA synchronous = FULL");
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db, migrations);
  return db;
}

function migrate(db: Database, migrations: readonly Migration[]): void {
  const current = () => (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  for (const m of migrations) {
    if (current() >= m.version) continue;
    db.transaction(() => {
      if (current() >= m.version) return; // another process got there first
      db.exec(m.sql);
      db.exec(`PRAGMA user_version = ${m.version}`);
    }).immediate();
  }
}
