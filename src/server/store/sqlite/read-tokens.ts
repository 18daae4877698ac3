// Read tokens on SQLite. Only SHA-256 hashes are stored; lookups go by hash.
import type { Database } from "bun:sqlite";
import { workloadsColumn, workloadsFromColumn, type ReadTokenInfo, type ReadTokenPrincipal, type ReadTokenStore } from "../read-token-store.ts";
import { StoreError } from "../types.ts";
import { requireOrgId } from "./orgs.ts";
import { isUniqueViolation, toOrg, type OrgRow } from "./rows.ts";

export class SqliteReadTokens implements ReadTokenStore {
  constructor(private readonly db: Database) {}

  async addReadToken(orgName: string, name: string, tokenHash: string, workloads: string[] | null, now = Date.now()): Promise<void> {
    const orgId = requireOrgId(this.db, orgName);
    try {
      this.db
        .query("INSERT INTO read_tokens (org_id, name, hash, workloads, created_at) VALUES (?, ?, ?, ?, ?)")
        .run(orgId, name, tokenHash, workloadsColumn(workloads), now);
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreError(`organization "${orgName}" already has an active read token named "${name}"`, "conflict");
      throw err;
    }
  }

  async findReadToken(tokenHash: string): Promise<ReadTokenPrincipal | null> {
    const t = this.db
      .query("SELECT id, org_id, name, hash, workloads FROM read_tokens WHERE hash = ? AND revoked_at IS NULL")
      .get(tokenHash) as { id: number; org_id: number; name: string; hash: string; workloads: string | null } | null;
    if (!t) return null;
    const org = this.db.query("SELECT * FROM orgs WHERE id = ?").get(t.org_id) as OrgRow;
    return { tokenId: t.id, tokenName: t.name, tokenHash: t.hash, org: toOrg(org), workloads: workloadsFromColumn(t.workloads) };
  }

  async revokeReadToken(orgName: string, name: string, now = Date.now()): Promise<void> {
    const orgId = requireOrgId(this.db, orgName);
    const res = this.db.query("UPDATE read_tokens SET revoked_at = ? WHERE org_id = ? AND name = ? AND revoked_at IS NULL").run(now, orgId, name);
    if (res.changes === 0) throw new StoreError(`organization "${orgName}" has no active read token named "${name}"`, "not_found");
  }

  async listReadTokens(orgName: string): Promise<ReadTokenInfo[]> {
    const orgId = requireOrgId(this.db, orgName);
    const rows = this.db
      .query("SELECT name, workloads, created_at, revoked_at FROM read_tokens WHERE org_id = ? ORDER BY created_at, id")
      .all(orgId) as Array<{ name: string; workloads: string | null; created_at: number; revoked_at: number | null }>;
    return rows.map((r) => ({ name: r.name, workloads: workloadsFromColumn(r.workloads), createdAt: r.created_at, revokedAt: r.revoked_at }));
  }
}
