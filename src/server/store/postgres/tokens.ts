// Capture and bootstrap tokens. Only SHA-256 hashes are stored; lookups go by hash.
import type { SQL } from "bun";
import type { TokenStore } from "../store.ts";
import { StoreError, type CaptureTokenInfo, type CaptureTokenPrincipal, type Org } from "../types.ts";
import { requireOrgId } from "./orgs.ts";
import { isUniqueViolation, toOrg, type PgOrgRow } from "./rows.ts";

export class PgTokens implements TokenStore {
  constructor(private readonly sql: SQL) {}

  async addCaptureToken(orgName: string, name: string, tokenHash: string, now = Date.now()): Promise<void> {
    const orgId = await requireOrgId(this.sql, orgName);
    try {
      await this.sql`INSERT INTO capture_tokens (org_id, name, hash, created_at) VALUES (${orgId}, ${name}, ${tokenHash}, ${now})`;
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new StoreError(`organization "${orgName}" already has an active capture token named "${name}"`, "conflict");
      }
      throw err;
    }
  }

  async findCaptureToken(tokenHash: string): Promise<CaptureTokenPrincipal | null> {
    // One round trip: over a network the JOIN is cheaper than two point lookups.
    const [r] = await this.sql`
      SELECT t.id AS token_id, t.name AS token_name, t.hash, o.id, o.name, o.profiler_enabled, o.created_at
        FROM capture_tokens t JOIN orgs o ON o.id = t.org_id
       WHERE t.hash = ${tokenHash} AND t.revoked_at IS NULL`;
    if (!r) return null;
    return { tokenId: Number(r.token_id), tokenName: r.token_name, tokenHash: r.hash, org: toOrg(r as PgOrgRow) };
  }

  async revokeCaptureToken(orgName: string, name: string, now = Date.now()): Promise<void> {
    const orgId = await requireOrgId(this.sql, orgName);
    const res = await this.sql`
      UPDATE capture_tokens SET revoked_at = ${now} WHERE org_id = ${orgId} AND name = ${name} AND revoked_at IS NULL`;
    if (res.count === 0) {
      throw new StoreError(`organization "${orgName}" has no active capture token named "${name}"`, "not_found");
    }
  }

  async listCaptureTokens(orgName: string): Promise<CaptureTokenInfo[]> {
    const orgId = await requireOrgId(this.sql, orgName);
    const rows = await this.sql`
      SELECT name, created_at, revoked_at FROM capture_tokens WHERE org_id = ${orgId} ORDER BY created_at, id`;
    return (rows as Array<{ name: string; created_at: string; revoked_at: string | null }>).map((r) => ({
      name: r.name,
      createdAt: Number(r.created_at),
      revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
    }));
  }

  async addBootstrapToken(orgName: string, tokenHash: string, now = Date.now()): Promise<void> {
    const orgId = await requireOrgId(this.sql, orgName);
    await this.sql`INSERT INTO bootstrap_tokens (org_id, hash, created_at) VALUES (${orgId}, ${tokenHash}, ${now})`;
  }

  async findBootstrapToken(tokenHash: string): Promise<Org | null> {
    const [row] = await this.sql`
      SELECT o.* FROM bootstrap_tokens b JOIN orgs o ON o.id = b.org_id WHERE b.hash = ${tokenHash} AND b.revoked_at IS NULL`;
    return row ? toOrg(row as PgOrgRow) : null;
  }
}
