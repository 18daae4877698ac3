// Enrolled Profiler instances, pushed profiles and diffs.
import type { SQL } from "bun";
import type { ArtifactClass } from "../../../protocol/enrol.ts";
import type { Baseline, CaptureQuery, EnrolledInstance, InstanceSummary, ProfilerStore, StoredDiff, DiffSummary } from "../profiler-store.ts";
import { requireOrgId } from "./orgs.ts";
import { SUMMARY_COLUMNS, toDiff, toSummary, type DiffRow } from "../diff-row.ts";
import { StoreError, type CaptureRecord } from "../types.ts";
import { SELECT_CAPTURE, toCapture, type PgCaptureRow } from "./rows.ts";

export class PgProfilers implements ProfilerStore {
  constructor(private readonly sql: SQL) {}

  async enrolInstance(orgId: number, instanceId: string, artifactClass: ArtifactClass, publicKey: string, now = Date.now()) {
    return this.sql.begin(async (tx) => {
      // Insert-or-nothing first, so two replicas enrolling the same id cannot both "create" it.
      const inserted = await tx`
        INSERT INTO instances (org_id, instance_id, class, public_key, enrolled_at, last_enrolled_at)
        VALUES (${orgId}, ${instanceId}, ${artifactClass}, ${publicKey}, ${now}, ${now})
        ON CONFLICT (org_id, instance_id) DO NOTHING`;
      if (inserted.count === 1) return { alreadyEnrolled: false };
      const [existing] = await tx`
        SELECT class, public_key FROM instances WHERE org_id = ${orgId} AND instance_id = ${instanceId} FOR UPDATE`;
      if (existing.public_key !== publicKey) {
        throw new StoreError(`instance "${instanceId}" is already enrolled with another key; a new identity needs a new instance id`, "conflict");
      }
      if (existing.class !== artifactClass) {
        throw new StoreError(`instance "${instanceId}" is enrolled as ${existing.class}, not ${artifactClass}`, "conflict");
      }
      await tx`UPDATE instances SET last_enrolled_at = ${now} WHERE org_id = ${orgId} AND instance_id = ${instanceId}`;
      return { alreadyEnrolled: true };
    });
  }

  async findInstance(orgName: string, instanceId: string): Promise<EnrolledInstance | null> {
    const [r] = await this.sql`
      SELECT i.org_id, o.name AS org_name, o.profiler_enabled, i.instance_id, i.class, i.public_key, i.enrolled_at
        FROM instances i JOIN orgs o ON o.id = i.org_id WHERE o.name = ${orgName} AND i.instance_id = ${instanceId}`;
    if (!r) return null;
    return {
      orgId: Number(r.org_id),
      orgName: r.org_name,
      profilerEnabled: r.profiler_enabled,
      instanceId: r.instance_id,
      artifactClass: r.class,
      publicKey: r.public_key,
      enrolledAt: Number(r.enrolled_at),
    };
  }

  async saveProfile(requestId: string, profileGz: Uint8Array, instanceId: string, now = Date.now()): Promise<void> {
    await this.sql`
      INSERT INTO profiles (request_id, instance_id, profile_gz, created_at) VALUES (${requestId}, ${instanceId}, ${profileGz}, ${now})
      ON CONFLICT (request_id) DO UPDATE SET instance_id = EXCLUDED.instance_id, profile_gz = EXCLUDED.profile_gz, created_at = EXCLUDED.created_at`;
  }

  async getProfile(requestId: string): Promise<Uint8Array | null> {
    const [r] = await this.sql`SELECT profile_gz FROM profiles WHERE request_id = ${requestId}`;
    return r ? new Uint8Array(r.profile_gz) : null;
  }

  async saveDiff(d: StoredDiff): Promise<void> {
    await this.sql`
      INSERT INTO diffs (request_id, compared_with, compared_version, note, verdict, json, html, created_at)
      VALUES (${d.requestId}, ${d.comparedWith?.requestId ?? null}, ${d.comparedWith?.version ?? null}, ${d.note}, ${d.verdict},
              ${d.json}, ${d.html}, ${d.createdAt})
      ON CONFLICT (request_id) DO UPDATE SET compared_with = EXCLUDED.compared_with, compared_version = EXCLUDED.compared_version,
        note = EXCLUDED.note, verdict = EXCLUDED.verdict, json = EXCLUDED.json, html = EXCLUDED.html, created_at = EXCLUDED.created_at`;
  }

  async getDiff(requestId: string): Promise<StoredDiff | null> {
    const [r] = await this.sql`SELECT * FROM diffs WHERE request_id = ${requestId}`;
    return r ? toDiff(r as DiffRow) : null;
  }

  async listDiffSummaries(requestIds: readonly string[]): Promise<DiffSummary[]> {
    if (requestIds.length === 0) return [];
    const rows = await this.sql.unsafe(`SELECT ${SUMMARY_COLUMNS} FROM diffs WHERE request_id IN (${requestIds.map((_, i) => `$${i + 1}`).join(",")})`, [...requestIds]);
    return (rows as DiffRow[]).map(toSummary);
  }

  // The baseline rule of ../baseline-rule.ts in SQL; store-baseline-rule.test.ts holds both dialects to it.
  async findBaseline(orgName: string, workload: string, env: string, version: string, before: number): Promise<Baseline | null> {
    const [head] = await this.sql.unsafe(
      `${SELECT_CAPTURE} WHERE o.name = $1 AND c.workload = $2 AND c.env = $3 AND c.version <> $4 AND c.kind = 'head'
          AND c.outcome = 'pushed' AND c.created_at < $5 ORDER BY c.created_at DESC LIMIT 1`,
      [orgName, workload, env, version, before],
    );
    if (!head) return null;
    const replicates = await this.sql.unsafe(
      `${SELECT_CAPTURE} WHERE o.name = $1 AND c.workload = $2 AND c.env = $3 AND c.version = $4 AND c.kind = 'replicate'
          AND c.outcome = 'pushed' ORDER BY c.created_at`,
      [orgName, workload, env, (head as PgCaptureRow).version],
    );
    return { head: toCapture(head as PgCaptureRow), replicates: (replicates as PgCaptureRow[]).map(toCapture) };
  }

  async listPushedOfVersion(orgName: string, workload: string, env: string, version: string): Promise<CaptureRecord[]> {
    const rows = await this.sql.unsafe(
      `${SELECT_CAPTURE} WHERE o.name = $1 AND c.workload = $2 AND c.env = $3 AND c.version = $4 AND c.outcome = 'pushed'
        ORDER BY c.created_at`,
      [orgName, workload, env, version],
    );
    return (rows as PgCaptureRow[]).map(toCapture);
  }

  async listInstances(orgName: string): Promise<InstanceSummary[]> {
    const orgId = await requireOrgId(this.sql, orgName);
    const rows = await this.sql`
      SELECT i.instance_id, i.class, i.enrolled_at,
             greatest(i.last_enrolled_at, coalesce((SELECT max(p.created_at) FROM profiles p JOIN capture_requests c ON c.request_id = p.request_id
                                                     WHERE p.instance_id = i.instance_id AND c.org_id = i.org_id), 0)) AS last_seen
        FROM instances i WHERE i.org_id = ${orgId} ORDER BY last_seen DESC, i.instance_id COLLATE "C"`;
    return (rows as Array<{ instance_id: string; class: ArtifactClass; enrolled_at: string; last_seen: string }>).map((r) => ({
      instanceId: r.instance_id,
      artifactClass: r.class,
      enrolledAt: Number(r.enrolled_at),
      lastSeenAt: Number(r.last_seen),
    }));
  }

  async queryCaptures(orgName: string, q: CaptureQuery): Promise<CaptureRecord[]> {
    const orgId = await requireOrgId(this.sql, orgName);
    const where = ["c.org_id = $1"];
    const args: Array<string | number> = [orgId];
    const arg = (v: string | number) => (args.push(v), `$${args.length}`);
    if (q.workload !== undefined) where.push(`c.workload = ${arg(q.workload)}`);
    if (q.env !== undefined) where.push(`c.env = ${arg(q.env)}`);
    if (q.before) {
      const t = arg(q.before.createdAt);
      where.push(`(c.created_at < ${t} OR (c.created_at = ${t} AND c.request_id < ${arg(q.before.requestId)}))`);
    }
    const rows = await this.sql.unsafe(
      `${SELECT_CAPTURE} WHERE ${where.join(" AND ")} ORDER BY c.created_at DESC, c.request_id DESC LIMIT ${arg(q.limit)}`,
      args,
    );
    return (rows as PgCaptureRow[]).map(toCapture);
  }

  async captureFacets(orgName: string): Promise<{ workloads: string[]; envs: string[] }> {
    const orgId = await requireOrgId(this.sql, orgName);
    // COLLATE "C": byte order, as SQLite sorts
    const w = await this.sql`SELECT DISTINCT workload COLLATE "C" AS v FROM capture_requests WHERE org_id = ${orgId} ORDER BY v`;
    const e = await this.sql`SELECT DISTINCT env COLLATE "C" AS v FROM capture_requests WHERE org_id = ${orgId} ORDER BY v`;
    return { workloads: (w as Array<{ v: string }>).map((r) => r.v), envs: (e as Array<{ v: string }>).map((r) => r.v) };
  }

  async lastRequestBy(orgName: string, requester: string, since: number, until: number | null): Promise<number | null> {
    const orgId = await requireOrgId(this.sql, orgName);
    const [r] = await this.sql`
      SELECT max(created_at) AS t FROM capture_requests
       WHERE org_id = ${orgId} AND requester = ${requester} AND created_at >= ${since} AND created_at <= ${until ?? Number.MAX_SAFE_INTEGER}`;
    return r.t === null ? null : Number(r.t);
  }
}
