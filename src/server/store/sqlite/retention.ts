// Retention policies and pruning on SQLite.
import type { Database } from "bun:sqlite";
import type { RetentionPolicy, RetentionStore, StorageUsage, StoredProfile } from "../retention-store.ts";
import { requireOrgId } from "./orgs.ts";

export class SqliteRetention implements RetentionStore {
  constructor(private readonly db: Database) {}

  async setRetentionPolicy(orgName: string, p: RetentionPolicy, now = Date.now()): Promise<void> {
    const orgId = requireOrgId(this.db, orgName);
    this.db
      .query(
        `INSERT INTO retention_policies (org_id, head_days, replicate_days, keep_versions, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (org_id) DO UPDATE SET head_days = excluded.head_days, replicate_days = excluded.replicate_days,
           keep_versions = excluded.keep_versions, updated_at = excluded.updated_at`,
      )
      .run(orgId, p.headDays, p.replicateDays, p.keepVersions, now);
  }

  async getRetentionPolicy(orgName: string): Promise<RetentionPolicy | null> {
    const orgId = requireOrgId(this.db, orgName);
    const r = this.db.query("SELECT head_days, replicate_days, keep_versions FROM retention_policies WHERE org_id = ?").get(orgId) as
      | { head_days: number | null; replicate_days: number | null; keep_versions: number }
      | null;
    return r && { headDays: r.head_days, replicateDays: r.replicate_days, keepVersions: r.keep_versions };
  }

  async listRetentionOrgs(): Promise<string[]> {
    return (this.db.query("SELECT o.name FROM retention_policies p JOIN orgs o ON o.id = p.org_id ORDER BY o.name").all() as { name: string }[]).map((r) => r.name);
  }

  async listStoredProfiles(orgName: string): Promise<StoredProfile[]> {
    const orgId = requireOrgId(this.db, orgName);
    const rows = this.db
      .query(
        `SELECT c.request_id, c.workload, c.env, c.version, c.kind, c.created_at, length(p.profile_gz) AS bytes
           FROM capture_requests c JOIN profiles p ON p.request_id = c.request_id
          WHERE c.org_id = ? ORDER BY c.created_at, c.request_id`,
      )
      .all(orgId) as Array<{ request_id: string; workload: string; env: string; version: string; kind: "head" | "replicate"; created_at: number; bytes: number }>;
    return rows.map((r) => ({ requestId: r.request_id, workload: r.workload, env: r.env, version: r.version, kind: r.kind, createdAt: r.created_at, bytes: r.bytes }));
  }

  async pruneProfiles(orgName: string, requestIds: readonly string[], now = Date.now()): Promise<{ pruned: number; bytes: number }> {
    const orgId = requireOrgId(this.db, orgName);
    const one = this.db.query(
      `SELECT length(p.profile_gz) AS bytes FROM profiles p JOIN capture_requests c ON c.request_id = p.request_id
        WHERE p.request_id = ? AND c.org_id = ?`,
    );
    return this.db.transaction(() => {
      let pruned = 0;
      let bytes = 0;
      for (const id of requestIds) {
        const r = one.get(id, orgId) as { bytes: number } | null;
        if (!r) continue;
        this.db.query("DELETE FROM profiles WHERE request_id = ?").run(id);
        this.db.query("UPDATE diffs SET html = NULL WHERE request_id = ?").run(id);
        this.db.query("INSERT INTO pruned_captures (request_id, org_id, bytes, pruned_at) VALUES (?, ?, ?, ?)").run(id, orgId, r.bytes, now);
        pruned++;
        bytes += r.bytes;
      }
      return { pruned, bytes };
    }).immediate();
  }

  async prunedAt(requestId: string): Promise<number | null> {
    const r = this.db.query("SELECT pruned_at FROM pruned_captures WHERE request_id = ?").get(requestId) as { pruned_at: number } | null;
    return r?.pruned_at ?? null;
  }

  async storageUsage(orgName: string): Promise<StorageUsage> {
    const orgId = requireOrgId(this.db, orgName);
    const p = this.db
      .query("SELECT count(*) AS n, coalesce(sum(length(p.profile_gz)), 0) AS b FROM profiles p JOIN capture_requests c ON c.request_id = p.request_id WHERE c.org_id = ?")
      .get(orgId) as { n: number; b: number };
    // length() of TEXT counts characters; as a BLOB it counts the bytes stored.
    const d = this.db
      .query(
        `SELECT coalesce(sum(coalesce(length(CAST(d.json AS BLOB)), 0) + coalesce(length(CAST(d.html AS BLOB)), 0) + length(CAST(d.note AS BLOB))), 0) AS b
           FROM diffs d JOIN capture_requests c ON c.request_id = d.request_id WHERE c.org_id = ?`,
      )
      .get(orgId) as { b: number };
    const pruned = this.db.query("SELECT count(*) AS n FROM pruned_captures WHERE org_id = ?").get(orgId) as { n: number };
    return { profiles: p.n, profileBytes: p.b, diffBytes: d.b, pruned: pruned.n };
  }
}
