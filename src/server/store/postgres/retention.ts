// Retention policies and pruning on PostgreSQL.
import type { SQL } from "bun";
import type { RetentionPolicy, RetentionStore, StorageUsage, StoredProfile } from "../retention-store.ts";
import { requireOrgId } from "./orgs.ts";

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null ? null : Number(v));

export class PgRetention implements RetentionStore {
  constructor(private readonly sql: SQL) {}

  async setRetentionPolicy(orgName: string, p: RetentionPolicy, now = Date.now()): Promise<void> {
    const orgId = await requireOrgId(this.sql, orgName);
    await this.sql`
      INSERT INTO retention_policies (org_id, head_days, replicate_days, keep_versions, updated_at)
      VALUES (${orgId}, ${p.headDays}, ${p.replicateDays}, ${p.keepVersions}, ${now})
      ON CONFLICT (org_id) DO UPDATE SET head_days = excluded.head_days, replicate_days = excluded.replicate_days,
        keep_versions = excluded.keep_versions, updated_at = excluded.updated_at`;
  }

  async getRetentionPolicy(orgName: string): Promise<RetentionPolicy | null> {
    const orgId = await requireOrgId(this.sql, orgName);
    const [r] = await this.sql`SELECT head_days, replicate_days, keep_versions FROM retention_policies WHERE org_id = ${orgId}`;
    return r ? { headDays: numOrNull(r.head_days), replicateDays: numOrNull(r.replicate_days), keepVersions: num(r.keep_versions) } : null;
  }

  async listRetentionOrgs(): Promise<string[]> {
    const rows = await this.sql`SELECT o.name FROM retention_policies p JOIN orgs o ON o.id = p.org_id ORDER BY o.name`;
    return (rows as { name: string }[]).map((r) => r.name);
  }

  async listStoredProfiles(orgName: string): Promise<StoredProfile[]> {
    const orgId = await requireOrgId(this.sql, orgName);
    const rows = await this.sql`
      SELECT c.request_id, c.workload, c.env, c.version, c.kind, c.created_at, octet_length(p.profile_gz) AS bytes
        FROM capture_requests c JOIN profiles p ON p.request_id = c.request_id
       WHERE c.org_id = ${orgId} ORDER BY c.created_at, c.request_id`;
    return (rows as Array<Record<string, unknown>>).map((r) => ({
      requestId: r.request_id as string,
      workload: r.workload as string,
      env: r.env as string,
      version: r.version as string,
      kind: r.kind as "head" | "replicate",
      createdAt: num(r.created_at),
      bytes: num(r.bytes),
    }));
  }

  async pruneProfiles(orgName: string, requestIds: readonly string[], now = Date.now()): Promise<{ pruned: number; bytes: number }> {
    const orgId = await requireOrgId(this.sql, orgName);
    if (requestIds.length === 0) return { pruned: 0, bytes: 0 };
    return this.sql.begin(async (tx) => {
      // One statement: the profiles of this org among the ids, deleted and recorded together.
      const gone = await tx`
        DELETE FROM profiles p USING capture_requests c
         WHERE p.request_id = c.request_id AND c.org_id = ${orgId} AND p.request_id IN ${tx(requestIds as string[])}
        RETURNING p.request_id, octet_length(p.profile_gz) AS bytes`;
      let bytes = 0;
      for (const g of gone as Array<{ request_id: string; bytes: unknown }>) {
        bytes += num(g.bytes);
        await tx`UPDATE diffs SET html = NULL WHERE request_id = ${g.request_id}`;
        await tx`INSERT INTO pruned_captures (request_id, org_id, bytes, pruned_at) VALUES (${g.request_id}, ${orgId}, ${num(g.bytes)}, ${now})`;
      }
      return { pruned: gone.length, bytes };
    });
  }

  async prunedAt(requestId: string): Promise<number | null> {
    const [r] = await this.sql`SELECT pruned_at FROM pruned_captures WHERE request_id = ${requestId}`;
    return r ? num(r.pruned_at) : null;
  }

  async storageUsage(orgName: string): Promise<StorageUsage> {
    const orgId = await requireOrgId(this.sql, orgName);
    const [p] = await this.sql`
      SELECT count(*) AS n, coalesce(sum(octet_length(p.profile_gz)), 0) AS b
        FROM profiles p JOIN capture_requests c ON c.request_id = p.request_id WHERE c.org_id = ${orgId}`;
    const [d] = await this.sql`
      SELECT coalesce(sum(coalesce(octet_length(d.json), 0) + coalesce(octet_length(d.html), 0) + octet_length(d.note)), 0) AS b
        FROM diffs d JOIN capture_requests c ON c.request_id = d.request_id WHERE c.org_id = ${orgId}`;
    const [n] = await this.sql`SELECT count(*) AS n FROM pruned_captures WHERE org_id = ${orgId}`;
    return { profiles: num(p.n), profileBytes: num(p.b), diffBytes: num(d.b), pruned: num(n.n) };
  }
}
