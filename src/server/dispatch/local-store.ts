// What the in-process dispatcher (dispatcher.ts, one server on the SQLite store) needs from its
// store: the queue reads only it runs, and two capture transitions every store has. Replicas on
// PostgreSQL dispatch through cluster-store.ts instead, so the PostgreSQL store has no LocalQueue.
import type { Store } from "../store/store.ts";
import type { CaptureRecord } from "../store/types.ts";

export interface LocalQueue {
  /** Queued requests of these orgs (the ones with a live Profiler), oldest first. */
  listQueuedCaptures(orgNames: readonly string[], limit: number): Promise<CaptureRecord[]>;
  /** running → queued for every request (a previous process died mid-flight). Returns how many. */
  requeueRunningCaptures(now?: number): Promise<number>;
}

export type LocalDispatchStore = LocalQueue & Pick<Store, "markCaptureRunning" | "completeCapture">;
