// The queue reads of the in-process dispatcher (dispatch/dispatcher.ts), which serves this store
// alone: replicas on PostgreSQL keep their in-flight state in the store (postgres/dispatch.ts).
import type { Database } from "bun:sqlite";
import type { LocalQueue } from "../../dispatch/local-store.ts";
import type { CaptureRecord } from "../types.ts";
import { SELECT_CAPTURE, toCapture, type CaptureRow } from "./rows.ts";

export class SqliteDispatch implements LocalQueue {
  constructor(private readonly db: Database) {}

  async listQueuedCaptures(orgNames: readonly string[], limit: number): Promise<CaptureRecord[]> {
    if (orgNames.length === 0) return [];
    const rows = this.db
      .query(`${SELECT_CAPTURE} WHERE c.status = 'queued' AND o.name IN (${orgNames.map(() => "?").join(", ")}) ORDER BY c.created_at, c.request_id LIMIT ?`)
      .all(...orgNames, limit) as CaptureRow[];
    return rows.map(toCapture);
  }

  async requeueRunningCaptures(now = Date.now()): Promise<number> {
    return this.db.query("UPDATE capture_requests SET status = 'queued', updated_at = ? WHERE status = 'running'").run(now).changes;
  }
}
