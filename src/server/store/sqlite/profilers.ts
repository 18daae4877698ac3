// Enrolled Profiler instances, pushed profiles and diffs (migration 2).
import type { Database } from "bun:sqlite";
import type { ArtifactClass } from "../../../protocol/enrol.ts";
import type { Baseline, CaptureQuery, EnrolledInstance, InstanceSummary, ProfilerStore, StoredDiff, DiffSummary } from "../profiler-store.ts";
import { StoreError, type CaptureRecord } from "../types.ts";
import { SELECT_CAPTURE, toCapture, type CaptureRow } from "./rows.ts";
import { requireOrgId } from "./orgs.ts";
import { SUMMARY_COLUMNS, toDiff, toSummary, type DiffRow } from "../diff-row.ts";

interface InstanceRow {
  org_id: number;
  org_name: string;
  profiler_enabled: number;
  instance_id: string;
  class: ArtifactClass;
  public_key: string;
  enrolled_at: number;
}

export class SqliteProfilers implements ProfilerStore {
  constructor(private readonly db: Database) {}

  async enrolInstance(orgId: number, instanceId: string, artifactClass: ArtifactClass, publicKey: string, now = Date.now()) {
    return this.db.transaction(() => {
      const existing = this.db
        .query("SELECT class, public_key FROM instances WHERE org_id = ? AND instance_id = ?")
        .get(orgId, instanceId) as { class: string; public_key: string } | null;
      if (existing) {
        if (existing.public_key !== publicKey) {
          throw new StoreError(`instance "${instanceId}" is already enrolled with another key; a new identity needs a new instance id`, "conflict");
        }
        if (existing.class !== artifactClass) {
          throw new StoreError(`instance "${instanceId}" is enrolled as ${existing.class}, not ${artifactClass}`, "conflict");
        }
        this.db.query("UPDATE instances SET last_enrolled_at = ? WHERE org_id = ? AND instance_id = ?").run(now, orgId, instanceId);
        return { alreadyEnrolled: true };
      }
      this.db
        .query("INSERT INTO instances (org_id, instance_id, class, public_key, enrolled_at, last_enrolled_at) VALUES (?, ?, ?, ?, ?, ?)")
        .run(orgId, instanceId, artifactClass, publicKey, now, now);
      return { alreadyEnrolled: false };
    }).immediate();
  }

  async findInstance(orgName: string, instanceId: string): Promise<EnrolledInstance | null> {
    const r = this.db
      .query(
        `SELECT i.org_id, o.name AS org_name, o.profiler_enabled, i.instance_id, i.class, i.public_key, i.enrolled_at
           FROM instances i JOIN orgs o ON o.id = i.org_id WHERE o.name = ? AND i.instance_id = ?`,
      )
      .get(orgName, instanceId) as InstanceRow | null;
    if (!r) return null;
    return {
      orgId: r.org_id,
      orgName: r.org_name,
      profilerEnabled: r.profiler_enabled === 1,
      instanceId: r.instance_id,
      artifactClass: r.class,
      publicKey: r.public_key,
      enrolledAt: r.enrolled_at,
    };
  }

  async saveProfile(requestId: string, profileGz: Uint8Array, instanceId: string, now = Date.now()): Promise<void> {
    this.db
      .query("INSERT OR REPLACE INTO profiles (request_id, instance_id, profile_gz, created_at) VALUES (?, ?, ?, ?)")
      .run(requestId, instanceId, profileGz, now);
  }

  async getProfile(requestId: string): Promise<Uint8Array | null> {
    const r = this.db.query("SELECT profile_gz FROM profiles WHERE request_id = ?").get(requestId) as { profile_gz: Uint8Array } | null;
    return r ? new Uint8Array(r.profile_gz) : null;
  }

  async saveDiff(d: StoredDiff): Promise<void> {
    this.db
      .query(
        `INSERT OR REPLACE INTO diffs (request_id, compared_with, compared_version, note, verdict, json, html, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(d.requestId, d.comparedWith?.requestId ?? null, d.comparedWith?.version ?? null, d.note, d.verdict, d.json, d.html, d.createdAt);
  }

  async getDiff(requestId: string): Promise<StoredDiff | null> {
    const r = this.db.query("SELECT * FROM diffs WHERE request_id = ?").get(requestId) as DiffRow | null;
    return r ? toDiff(r) : null;
  }

  async listDiffSummaries(requestIds: readonly string[]): Promise<DiffSummary[]> {
    if (requestIds.length === 0) return [];
    const rows = this.db.query(`SELECT ${SUMMARY_COLUMNS} FROM diffs WHERE request_id IN (${requestIds.map(() => "?").join(",")})`).all(...requestIds) as DiffRow[];
    return rows.map(toSummary);
  }

  // The baseline rule of ../baseline-rule.ts in SQL; store-baseline-rule.test.ts holds both dialects to it.
  async findBaseline(orgName: string, workload: string, env: string, version: string, before: number): Promise<Baseline | null> {
    const head = this.db
      .query(
        `${SELECT_CAPTURE} WHERE o.name = ? AND c.workload = ? AND c.env = ? AND c.version <> ? AND c.kind = 'head'
            AND c.outcome = 'pushed' AND c.created_at < ? ORDER BY c.created_at DESC LIMIT 1`,
      )
      .get(orgName, workload, env, version, before) as CaptureRow | null;
    if (!head) return null;
    const replicates = (
      this.db
        .query(`${SELECT_CAPTURE} WHERE o.name = ? AND c.workload = ? AND c.env = ? AND c.version = ? AND c.kind = 'replicate' AND c.outcome = 'pushed' ORDER BY c.created_at`)
        .all(orgName, workload, env, head.version) as CaptureRow[]
    ).map(toCapture);
    return { head: toCapture(head), replicates };
  }

  async listPushedOfVersion(orgName: string, workload: string, env: string, version: string): Promise<CaptureRecord[]> {
    const rows = this.db
      .query(`${SELECT_CAPTURE} WHERE o.name = ? AND c.workload = ? AND c.env = ? AND c.version = ? AND c.outcome = 'pushed' ORDER BY c.created_at`)
      .all(orgName, workload, env, version) as CaptureRow[];
    return rows.map(toCapture);
  }

  async listInstances(orgName: string): Promise<InstanceSummary[]> {
    const orgId = requireOrgId(this.db, orgName);
    const rows = this.db
      .query(
        `SELECT i.instance_id, i.class, i.enrolled_at,
                max(i.last_enrolled_at, coalesce((SELECT max(p.created_at) FROM profiles p JOIN capture_requests c ON c.request_id = p.request_id
                                                   WHERE p.instance_id = i.instance_id AND c.org_id = i.org_id), 0)) AS last_seen
           FROM instances i WHERE i.org_id = ? ORDER BY last_seen DESC, i.instance_id`,
      )
      .all(orgId) as Array<{ instance_id: string; class: ArtifactClass; enrolled_at: number; last_seen: number }>;
    return rows.map((r) => ({ instanceId: r.instance_id, artifactClass: r.class, enrolledAt: r.enrolled_at, lastSeenAt: r.last_seen }));
  }

  async queryCaptures(orgName: string, q: CaptureQuery): Promise<CaptureRecord[]> {
    const orgId = requireOrgId(this.db, orgName);
    const where = ["c.org_id = ?"];
    const args: Array<string | number> = [orgId];
    if (q.workload !== undefined) (where.push("c.workload = ?"), args.push(q.workload));
    if (q.env !== undefined) (where.push("c.env = ?"), args.push(q.env));
    if (q.before) {
      where.push("(c.created_at < ? OR (c.created_at = ? AND c.request_id < ?))");
      args.push(q.before.createdAt, q.before.createdAt, q.before.requestId);
    }
    args.push(q.limit);
    const rows = this.db
      .query(`${SELECT_CAPTURE} WHERE ${where.join(" AND ")} ORDER BY c.created_at DESC, c.request_id DESC LIMIT ?`)
      .all(...args) as CaptureRow[];
    return rows.map(toCapture);
  }

  async captureFacets(orgName: string): Promise<{ workloads: string[]; envs: string[] }> {
    const orgId = requireOrgId(this.db, orgName);
    // Loose index scans over (org_id, workload, env, …): one seek per distinct value instead of a
    // pass over every record — SELECT DISTINCT took ~8 ms at 10k records and grew with them.
    const workloads = (
      this.db
        .query(
          `WITH RECURSIVE w(v) AS (
             SELECT min(workload) FROM capture_requests WHERE org_id = ?1
             UNION ALL
             SELECT (SELECT min(workload) FROM capture_requests WHERE org_id = ?1 AND workload > w.v) FROM w WHERE w.v IS NOT NULL)
           SELECT v FROM w WHERE v IS NOT NULL`,
        )
        .all(orgId) as Array<{ v: string }>
    ).map((r) => r.v);
    const envQuery = this.db.query(
      `WITH RECURSIVE e(v) AS (
         SELECT min(env) FROM capture_requests WHERE org_id = ?1 AND workload = ?2
         UNION ALL
         SELECT (SELECT min(env) FROM capture_requests WHERE org_id = ?1 AND workload = ?2 AND env > e.v) FROM e WHERE e.v IS NOT NULL)
       SELECT v FROM e WHERE v IS NOT NULL`,
    );
    const envs = new Set<string>();
    for (const w of workloads) for (const r of envQuery.all(orgId, w) as Array<{ v: string }>) envs.add(r.v);
    return { workloads, envs: [...envs].sort() };
  }

  async lastRequestBy(orgName: string, requester: string, since: number, until: number | null): Promise<number | null> {
    const orgId = requireOrgId(this.db, orgName);
    const r = this.db
      .query("SELECT max(created_at) AS t FROM capture_requests WHERE org_id = ? AND requester = ? AND created_at >= ? AND created_at <= ?")
      .get(orgId, requester, since, until ?? Number.MAX_SAFE_INTEGER) as { t: number | null };
    return r.t;
  }
}
