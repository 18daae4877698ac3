// Capture requests and their records: the rate-limited, deduplicated queue.
import type { Database } from "bun:sqlite";
import type { CaptureRequest } from "../../../protocol/capture-request.ts";
import type { CaptureStore } from "../store.ts";
import type { CaptureRecord, CaptureResult, CaptureStatus, QueuePolicy, QueueResult } from "../types.ts";
import { dedupeKey, rateLimited, transitionRefused } from "../queue-rules.ts";
import { requireOrgId } from "./orgs.ts";
import { SELECT_CAPTURE, toCapture, type CaptureRow } from "./rows.ts";

export class SqliteCaptures implements CaptureStore {
  private readonly queueTx: (orgId: number, requester: string, request: CaptureRequest, policy: QueuePolicy) => QueueResult;

  constructor(private readonly db: Database) {
    // One IMMEDIATE transaction holds the write lock across count, lookup and insert: no other
    // connection (another server process, the admin CLI) can slip a row in between.
    const tx = db.transaction((orgId: number, requester: string, request: CaptureRequest, policy: QueuePolicy) =>
      this.queueInTransaction(orgId, requester, request, policy),
    );
    this.queueTx = (...args) => tx.immediate(...args);
  }

  async queueCapture(orgId: number, requester: string, request: CaptureRequest, policy: QueuePolicy): Promise<QueueResult> {
    return this.queueTx(orgId, requester, request, policy);
  }

  private queueInTransaction(orgId: number, requester: string, request: CaptureRequest, policy: QueuePolicy): QueueResult {
    // Dedupe before the limit: a repeat of an in-flight request is not a new request, so it gets
    // its id back (202, deduped) even when the organization is at its hourly limit.
    const key = dedupeKey(request);
    // Only the id: this runs on every request, and materialising the full row costs more than the lookup.
    const existing = this.db
      .query("SELECT request_id FROM capture_requests WHERE org_id = ? AND dedupe_key = ? AND status IN ('queued', 'running')")
      .get(orgId, key) as { request_id: string } | null;
    if (existing) return { kind: "deduped", requestId: existing.request_id };
    const since = policy.now - policy.windowMs;
    const { n } = this.db
      .query("SELECT count(*) AS n FROM capture_requests WHERE org_id = ? AND created_at > ?")
      .get(orgId, since) as { n: number };
    if (n >= policy.limit) {
      // The next slot frees when the (n - limit + 1)-th oldest request of the window ages out.
      const { created_at } = this.db
        .query(
          "SELECT created_at FROM capture_requests WHERE org_id = ? AND created_at > ? ORDER BY created_at LIMIT 1 OFFSET ?",
        )
        .get(orgId, since, n - policy.limit) as { created_at: number };
      return rateLimited(created_at, policy);
    }
    const requestId = Bun.randomUUIDv7();
    this.db
      .query(
        `INSERT INTO capture_requests (request_id, org_id, workload, version, env, kind, duration_sec, warmup_sec,
                                       requester, status, dedupe_key, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)`,
      )
      .run(
        requestId, orgId, request.workload, request.version, request.env, request.kind,
        request.durationSec, request.warmupSec, requester, key, policy.now, policy.now,
      );
    return { kind: "queued", requestId };
  }

  async getCapture(requestId: string): Promise<CaptureRecord | null> {
    const row = this.db.query(`${SELECT_CAPTURE} WHERE c.request_id = ?`).get(requestId) as CaptureRow | null;
    return row ? toCapture(row) : null;
  }

  async listCaptures(orgName: string, limit = 1000): Promise<CaptureRecord[]> {
    const orgId = requireOrgId(this.db, orgName);
    const rows = this.db
      .query(`${SELECT_CAPTURE} WHERE c.org_id = ? ORDER BY c.created_at DESC, c.request_id DESC LIMIT ?`)
      .all(orgId, limit) as CaptureRow[];
    return rows.map(toCapture);
  }

  async markCaptureRunning(requestId: string, now = Date.now()): Promise<CaptureRecord> {
    const res = this.db
      .query("UPDATE capture_requests SET status = 'running', updated_at = ? WHERE request_id = ? AND status = 'queued'")
      .run(now, requestId);
    if (res.changes === 0) this.refuseTransition(requestId, "running");
    return this.mustGet(requestId);
  }

  async completeCapture(requestId: string, result: CaptureResult, now = Date.now()): Promise<CaptureRecord> {
    const res = this.db
      .query(
        `UPDATE capture_requests SET status = 'done', outcome = ?, reason = ?, instrumentation = ?, updated_at = ?
          WHERE request_id = ? AND status IN ('queued', 'running')`,
      )
      .run(
        result.outcome,
        result.reason ?? null,
        result.instrumentation ? JSON.stringify(result.instrumentation) : null,
        now,
        requestId,
      );
    if (res.changes === 0) this.refuseTransition(requestId, "done");
    return this.mustGet(requestId);
  }

  private refuseTransition(requestId: string, to: CaptureStatus): never {
    const row = this.db.query("SELECT status FROM capture_requests WHERE request_id = ?").get(requestId) as { status: string } | null;
    throw transitionRefused(requestId, to, row?.status ?? null);
  }

  private mustGet(requestId: string): CaptureRecord {
    return toCapture(this.db.query(`${SELECT_CAPTURE} WHERE c.request_id = ?`).get(requestId) as CaptureRow);
  }
}
