// Capture requests and their records: the rate-limited, deduplicated queue, exact across replicas.
import type { SQL } from "bun";
import type { CaptureRequest } from "../../../protocol/capture-request.ts";
import type { CaptureStore } from "../store.ts";
import { dedupeKey, rateLimited, transitionRefused } from "../queue-rules.ts";
import type { CaptureRecord, CaptureResult, CaptureStatus, QueuePolicy, QueueResult } from "../types.ts";
import { requireOrgId } from "./orgs.ts";
import { SELECT_CAPTURE, toCapture, type PgCaptureRow } from "./rows.ts";

/** NOTIFY channel: a request was queued (payload empty). Every replica's dispatcher listens. */
export const WORK_CHANNEL = "runner_work";
/** First key of the per-org advisory locks (two-key form: this space, org id). */
const ORG_LOCK_SPACE = 0x72756e72; // "runr"

export class PgCaptures implements CaptureStore {
  constructor(private readonly sql: SQL) {}

  async queueCapture(orgId: number, requester: string, request: CaptureRequest, policy: QueuePolicy): Promise<QueueResult> {
    const key = dedupeKey(request);
    const since = policy.now - policy.windowMs;
    // Fast path, no lock and no transaction: dedupe before the limit (a repeat of an in-flight
    // request is not a new request, so it gets its id back even at the limit), then the limit.
    // Both answers stay true once seen: a request in the window never leaves it early, and a
    // found in-flight id is a valid answer. Only a possible insert has to serialize.
    // One round trip: the in-flight twin, the window count, and when the next slot frees (the
    // (n - limit + 1)-th oldest request of the window ages out; the window never holds much more
    // than `limit` rows).
    const [fast] = await this.sql`
      SELECT (SELECT request_id FROM capture_requests
               WHERE org_id = ${orgId} AND dedupe_key = ${key} AND status IN ('queued', 'running') LIMIT 1) AS hit,
             w.n, w.frees_at
        FROM (SELECT count(*)::int AS n,
                     (array_agg(created_at ORDER BY created_at))[greatest(count(*) - ${policy.limit} + 1, 1)] AS frees_at
                FROM capture_requests WHERE org_id = ${orgId} AND created_at > ${since}) w`;
    if (fast.hit) return { kind: "deduped", requestId: fast.hit as string };
    if (fast.n >= policy.limit) return rateLimited(Number(fast.frees_at), policy);
    return this.sql.begin(async (tx) => {
      // A transaction-scoped advisory lock per org serializes every queueing transaction of this
      // org, whichever replica runs it, without writing to the org row: the dedupe lookup, count
      // and insert below see each other's committed rows, so the limit and the dedupe are exact.
      await tx`SELECT pg_advisory_xact_lock(${ORG_LOCK_SPACE}::int, ${orgId}::int)`;
      const [existing] = await tx`
        SELECT request_id FROM capture_requests WHERE org_id = ${orgId} AND dedupe_key = ${key} AND status IN ('queued', 'running')`;
      if (existing) return { kind: "deduped", requestId: existing.request_id as string } as const;
      const [{ n }] = await tx`SELECT count(*)::int AS n FROM capture_requests WHERE org_id = ${orgId} AND created_at > ${since}`;
      if (n >= policy.limit) {
        const [{ frees_at }] = await tx`
          SELECT created_at AS frees_at FROM capture_requests WHERE org_id = ${orgId} AND created_at > ${since}
           ORDER BY created_at LIMIT 1 OFFSET ${n - policy.limit}`;
        return rateLimited(Number(frees_at), policy);
      }
      const requestId = Bun.randomUUIDv7();
      await tx`
        INSERT INTO capture_requests (request_id, org_id, workload, version, env, kind, duration_sec, warmup_sec,
                                      requester, status, dedupe_key, created_at, updated_at)
        VALUES (${requestId}, ${orgId}, ${request.workload}, ${request.version}, ${request.env}, ${request.kind},
                ${request.durationSec}, ${request.warmupSec}, ${requester}, 'queued', ${key}, ${policy.now}, ${policy.now})`;
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

  async completeCapture(requestId: string, result: CaptureResult, now = Date.now()): Promise<CaptureRecord> {
    const instrumentation = result.instrumentation ? JSON.stringify(result.instrumentation) : null;
    const res = await this.sql`
      UPDATE capture_requests SET status = 'done', outcome = ${result.outcome}, reason = ${result.reason ?? null},
             instrumentation = ${instrumentation}, updated_at = ${now}
       WHERE request_id = ${requestId} AND status IN ('queued', 'running')`;
    if (res.count === 0) await this.refuseTransition(requestId, "done");
    return this.mustGet(requestId);
  }

  private async refuseTransition(requestId: string, to: CaptureStatus): Promise<never> {
    const [row] = await this.sql`SELECT status FROM capture_requests WHERE request_id = ${requestId}`;
    throw transitionRefused(requestId, to, row?.status ?? null);
  }

  private async mustGet(requestId: string): Promise<CaptureRecord> {
    return (await this.getCapture(requestId))!;
  }
}
