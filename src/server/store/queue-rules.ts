// The capture queue's rules every Store implementation applies the same way (SQLite and
// PostgreSQL each do the locking their own way; what counts as a duplicate, when a refused
// request may try again, and how a refused status change is said are stated once, here).
import type { CaptureRequest } from "../../protocol/capture-request.ts";
import { StoreError, type CaptureStatus, type QueuePolicy, type QueueResult } from "./types.ts";

/** Requests are identical when every field that changes what gets measured is equal. */
export function dedupeKey(r: CaptureRequest): string {
  return JSON.stringify([r.workload, r.version, r.env, r.kind, r.durationSec, r.warmupSec]);
}

/**
 * The refusal at the limit: whole seconds (at least 1) until `freesAt` — the created_at of the
 * (n - limit + 1)-th oldest request of the window — ages out of it.
 */
export function rateLimited(freesAt: number, policy: QueuePolicy): QueueResult {
  return { kind: "rate_limited", retryAfterSeconds: Math.max(1, Math.ceil((freesAt + policy.windowMs - policy.now) / 1000)) };
}

/** The refusal of a status change: `status` is the request's own (null: there is no such request). */
export function transitionRefused(requestId: string, to: CaptureStatus, status: string | null): StoreError {
  if (status === null) return new StoreError(`capture request "${requestId}" does not exist`, "not_found");
  return new StoreError(`capture request "${requestId}" is ${status}; cannot move to ${to}`, "conflict");
}
