// Organizations and their Profiler opt-in.
import type { Database } from "bun:sqlite";
import type { OrgStore } from "../store.ts";
import { StoreError, type Org } from "../types.ts";
import { isUniqueViolation, toOrg, type OrgRow } from "./rows.ts";

export class SqliteOrgs implements OrgStore {
  constructor(private readonly db: Database) {}

  async createOrg(name: string, now = Date.now()): Promise<Org> {
    try {
      const row = this.db
        .query("INSERT INTO orgs (name, profiler_enabled, created_at) VALUES (?, 0, ?) RETURNING *")
        .get(name, now) as OrgRow;
      return toOrg(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreError(`organization "${name}" already exists`, "conflict");
      throw err;
    }
  }

  async getOrg(name: string): Promise<Org | null> {
    const row = this.db.query("SELECT * FROM orgs WHERE name = ?").get(name) as OrgRow | null;
    return row ? toOrg(row) : null;
  }

  async setProfilerEnabled(name: string, enabled: boolean): Promise<Org> {
    const row = this.db
      .query("UPDATE orgs SET profiler_enabled = ? WHERE name = ? RETURNING *")
      .get(enabled ? 1 : 0, name) as OrgRow | null;
    if (!row) throw new StoreError(`organization "${name}" does not exist`, "not_found");
    return toOrg(row);
  }
}

/** The org's id, or a not_found StoreError naming it. */
export function requireOrgId(db: Database, name: string): number {
  const row = db.query("SELECT id FROM orgs WHERE name = ?").get(name) as { id: number } | null;
  if (!row) throw new StoreError(`organization "${name}" does not exist`, "not_found");
  return row.id;
}
