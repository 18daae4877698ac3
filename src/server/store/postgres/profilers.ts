// Enrolled Profiler instances, pushed profiles and diffs, and the queue reads dispatch uses.
import type { SQL } from "bun";
import type { ArtifactClass } from "../../../protocol/enroll.ts";
import type { Baseline, EnrolledInstance, ProfilerStore, StoredDiff } from "../profiler-store.ts";
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

  async listQueuedCaptures(limit: number): Promise<CaptureRecord[]> {
    const rows = await this.sql.unsafe(`${SELECT_CAPTURE} WHERE c.status = 'queued' ORDER BY c.created_at, c.request_id LIMIT $1`, [limit]);
    return (rows as PgCaptureRow[]).map(toCapture);
  }

  /**
   * Only for a single server on this database (the in-process dispatcher). Several replicas never
   * call it: they recover through replica leases instead (cluster-dispatch.ts).
   */
  async requeueRunningCaptures(now = Date.now()): Promise<number> {
    const res = await this.sql`UPDATE capture_requests SET status = 'queued', updated_at = ${now} WHERE status = 'running'`;
    return res.count;
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
    if (!r) return null;
    return {
      requestId: r.request_id,
      comparedWith: r.compared_with ? { requestId: r.compared_with, version: r.compared_version ?? "" } : null,
      note: r.note,
      verdict: r.verdict,
      json: r.json,
      html: r.html,
      createdAt: Number(r.created_at),
    };
  }

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
}
