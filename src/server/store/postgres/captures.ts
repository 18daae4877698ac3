// Capture requests and their records: the rate-limited, deduplicated queue, exact across replicas.
import type { SQL } from "bun";
import type { CaptureRequest } from "../../../protocol/capture-request.ts";
import type { CaptureStore } from "../store.ts";
import { dedupeKey } from "../sqlite/captures.ts";
import {
  StoreError,
  type CaptureOutcome,
  type CaptureRecord,
  type Instrumentation,
  type QueuePolicy,
  type QueueResult,
} from "../types.ts";
import { requireOrgId } from "./orgs.ts";
import { SELECT_CAPTURE, toCapture, type PgCaptureRow } from "./rows.ts";

/** NOTIFY channel: a request was queued (payload empty). Every replica's dispatcher listens. */
export const WORK_CHANNEL = "runner_work";

export class PgCaptures implements CaptureStore {
  constructor(private readonly sql: SQL) {}

  async queueCapture(orgId: number, requester: string, request: CaptureRequest, policy: QueuePolicy): Promise<QueueResult> {
    const key = dedupeKey(request);
    // Dedupe before the limit: a repeat of an in-flight request is not a new request, so it gets
    // its id back even when the organization is at its hourly limit. A hit needs no lock.
    const [hit] = await this.sql`
      SELECT request_id FROM capture_requests WHERE org_id = ${orgId} AND dedupe_key = ${key} AND status IN ('queued', 'running')`;
    if (hit) return { kind: "deduped", requestId: hit.request_id as string };
    return this.sql.begin(async (tx) => {
      // The org row lock serializes every queueing transaction of this org, whichever replica runs
      // it: the dedupe lookup, count and insert see each other's committed rows, so both are exact.
      const [org] = await tx`SELECT id FROM orgs WHERE id = ${orgId} FOR UPDATE`;
      if (!org) throw new StoreError(`organization ${orgId} does not exist`, "not_found");
      const [existing] = await tx`
        SELECT request_id FROM capture_requests WHERE org_id = ${orgId} AND dedupe_key = ${key} AND status IN ('queued', 'running')`;
      if (existing) return { kind: "deduped", requestId: existing.request_id as string } as const;
      const since = policy.now - policy.windowMs;
      const [{ n }] = await tx`SELECT count(*)::int AS n FROM capture_requests WHERE org_id = ${orgId} AND created_at > ${since}`;
      if (n >= policy.limit) {
        // The next slot frees when the (n - limit + 1)-th oldest request of the window ages out.
        const [{ created_at }] = await tx`
          SELECT created_at FROM capture_requests WHERE org_id = ${orgId} AND created_at > ${since}
           ORDER BY created_at LIMIT 1 OFFSET ${n - policy.limit}`;
        const retryAfterSeconds = Math.max(1, Math.ceil((Number(created_at) + policy.windowMs - policy.now) / 1000));
        return { kind: "rate_limited", retryAfterSeconds } as const;
      }
      const requestId = Bun.randomUUIDv7();
      await tx`
        INSERT INTO capture_requests (request_id, org_id, workload, version, env, kind, duration_sec, warmup_sec,
                                      requester, status, dedupe_key, created_at, updated_at)
        VALUES (${requestId}, ${orgId}, ${request.workload}, ${request.version}, ${request.env}, ${request.kind},
                ${request.duration_sec}, ${request.warmup_sec}, ${requester}, 'queued', ${key}, ${policy.now}, ${policy.now})`;
      // Delivered at commit, to every replica: new work, no polling delay.
      await tx`SELECT pg_notify(${WORK_CHANNEL}, '')`;
      return { kind: "queued", requestId } as const;
    });
  }

  async getCapture(requestId: string): Promise<CaptureRecord | null> {
    const [row] = await this.sql.unsafe(`${SELECT_CAPTURE} WHERE c.request_id = $1`, [requestId]);
    return row ? toCapture(row as PgCaptureRow) : null;
  }

  async listCaptures(orgName: string, limit = 1000): Promise<CaptureRecord[]> {
    const orgId = await requireOrgId(this.sql, orgName);
    const rows = await this.sql.unsafe(`${SELECT_CAPTURE} WHERE c.org_id = $1 ORDER BY c.created_at DESC, c.request_id DESC LIMIT $2`, [
      orgId,
      limit,
    ]);
    return (rows as PgCaptureRow[]).map(toCapture);
  }

  async markCaptureRunning(requestId: string, now = Date.now()): Promise<CaptureRecord> {
    const res = await this.sql`
      UPDATE capture_requests SET status = 'running', updated_at = ${now} WHERE request_id = ${requestId} AND status = 'queued'`;
    if (res.count === 0) await this.refuseTransition(requestId, "running");
    return this.mustGet(requestId);
  }

  async completeCapture(
    requestId: string,
    result: { outcome: CaptureOutcome; reason?: string | null; instrumentation?: Instrumentation | null },
    now = Date.now(),
  ): Promise<CaptureRecord> {
    const instrumentation = result.instrumentation ? JSON.stringify(result.instrumentation) : null;
    const res = await this.sql`
      UPDATE capture_requests SET status = 'done', outcome = ${result.outcome}, reason = ${result.reason ?? null},
             instrumentation = ${instrumentation}, updated_at = ${now}
       WHERE request_id = ${requestId} AND status IN ('queued', 'running')`;
    if (res.count === 0) await this.refuseTransition(requestId, "done");
    return this.mustGet(requestId);
  }

  private async refuseTransition(requestId: string, to: string): Promise<never> {
    const [row] = await this.sql`SELECT status FROM capture_requests WHERE request_id = ${requestId}`;
    if (!row) throw new StoreError(`capture request "${requestId}" does not exist`, "not_found");
    throw new StoreError(`capture request "${requestId}" is ${row.status}; cannot move to ${to}`, "conflict");
  }

  private async mustGet(requestId: string): Promise<CaptureRecord> {
    return (await this.getCapture(requestId))!;
  }
}
