// Read tokens on PostgreSQL. Only SHA-256 hashes are stored; lookups go by hash.
import type { SQL } from "bun";
import { workloadsColumn, workloadsFromColumn, type ReadTokenInfo, type ReadTokenPrincipal, type ReadTokenStore } from "../read-token-store.ts";
import { StoreError } from "../types.ts";
import { requireOrgId } from "./orgs.ts";
import { isUniqueViolation, toOrg, type PgOrgRow } from "./rows.ts";

export class PgReadTokens implements ReadTokenStore {
  constructor(private readonly sql: SQL) {}

  async addReadToken(orgName: string, name: string, tokenHash: string, workloads: string[] | null, now = Date.now()): Promise<void> {
    const orgId = await requireOrgId(this.sql, orgName);
    try {
      await this.sql`INSERT INTO read_tokens (org_id, name, hash, workloads, created_at)
                     VALUES (${orgId}, ${name}, ${tokenHash}, ${workloadsColumn(workloads)}, ${now})`;
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreError(`organization "${orgName}" already has an active read token named "${name}"`, "conflict");
      throw err;
    }
  }

  async findReadToken(tokenHash: string): Promise<ReadTokenPrincipal | null> {
    const [r] = await this.sql`
      SELECT t.id AS token_id, t.name AS token_name, t.hash, t.workloads, o.id, o.name, o.profiler_enabled, o.created_at
        FROM read_tokens t JOIN orgs o ON o.id = t.org_id
       WHERE t.hash = ${tokenHash} AND t.revoked_at IS NULL`;
    if (!r) return null;
    return { tokenId: Number(r.token_id), tokenName: r.token_name, tokenHash: r.hash, org: toOrg(r as PgOrgRow), workloads: workloadsFromColumn(r.workloads) };
  }

  async revokeReadToken(orgName: string, name: string, now = Date.now()): Promise<void> {
    const orgId = await requireOrgId(this.sql, orgName);
    const res = await this.sql`UPDATE read_tokens SET revoked_at = ${now} WHERE org_id = ${orgId} AND name = ${name} AND revoked_at IS NULL`;
    if (res.count === 0) throw new StoreError(`organization "${orgName}" has no active read token named "${name}"`, "not_found");
  }

  async listReadTokens(orgName: string): Promise<ReadTokenInfo[]> {
    const orgId = await requireOrgId(this.sql, orgName);
    const rows = await this.sql`SELECT name, workloads, created_at, revoked_at FROM read_tokens WHERE org_id = ${orgId} ORDER BY created_at, id`;
    return (rows as Array<{ name: string; workloads: string | null; created_at: string; revoked_at: string | null }>).map((r) => ({
      name: r.name,
      workloads: workloadsFromColumn(r.workloads),
      createdAt: Number(r.created_at),
      revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    }));
  }
}
