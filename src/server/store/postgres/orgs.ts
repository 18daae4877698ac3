// Organizations.
import type { SQL } from "bun";
import type { OrgStore } from "../store.ts";
import { StoreError, type Org } from "../types.ts";
import { isUniqueViolation, toOrg, type PgOrgRow } from "./rows.ts";

export class PgOrgs implements OrgStore {
  constructor(private readonly sql: SQL) {}

  async createOrg(name: string, now = Date.now()): Promise<Org> {
    try {
      const [row] = await this.sql`INSERT INTO orgs (name, created_at) VALUES (${name}, ${now}) RETURNING *`;
      return toOrg(row as PgOrgRow);
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreError(`organization "${name}" already exists`, "conflict");
      throw err;
    }
  }

  async getOrg(name: string): Promise<Org | null> {
    const [row] = await this.sql`SELECT * FROM orgs WHERE name = ${name}`;
    return row ? toOrg(row as PgOrgRow) : null;
  }

  async setProfilerEnabled(name: string, enabled: boolean): Promise<Org> {
    const [row] = await this.sql`UPDATE orgs SET profiler_enabled = ${enabled} WHERE name = ${name} RETURNING *`;
    if (!row) throw new StoreError(`organization "${name}" does not exist`, "not_found");
    return toOrg(row as PgOrgRow);
  }
}

/** The org's id, or a not_found StoreError naming it. */
export async function requireOrgId(sql: SQL, name: string): Promise<number> {
  const [row] = await sql`SELECT id FROM orgs WHERE name = ${name}`;
  if (!row) throw new StoreError(`organization "${name}" does not exist`, "not_found");
  return Number(row.id);
}
