// Records the store hands out. Times are epoch milliseconds.
import type { CaptureKind, CaptureRequest } from "../../protocol/capture-request.ts";

export interface Org {
  id: number;
  name: string;
  profilerEnabled: boolean;
  createdAt: number;
}

export interface CaptureTokenInfo {
  name: string;
  createdAt: number;
  revokedAt: number | null;
}

/** What authenticating a capture token yields: the token's name and its organization. */
export interface CaptureTokenPrincipal {
  tokenId: number;
  tokenName: string;
  tokenHash: string;
  org: Org;
}

export type CaptureStatus = "queued" | "running" | "done";
export type CaptureOutcome = "pushed" | "nothing_to_push" | "failed";

/** A capture record's instrumentation (the wire's per-Profiler report, protocol/tunnel.ts Instrumentation, merged): "fully instrumented" or "N of M probes" (protocol/instrumentation-statement.ts). */
export interface RecordInstrumentation {
  probes_requested: number;
  probes_attached: number;
  missing: Array<{ probe: string; reason: string }>;
  /** Axes with more than 5% of their value in stacks that could not be walked to their root. */
  incomplete?: Array<{ axis: string; share: number }>;
  /** Axes with more than 5% of their samples in no stack (ring buffer or unwinder full). */
  lost?: Array<{ axis: string; share: number }>;
  /** The collector's caveats about the capture, as it wrote them (protocol/tunnel.ts Instrumentation.notes). */
  notes?: string[];
}

/** How a request ended, as a dispatcher records it (CaptureStore.completeCapture). */
export interface CaptureResult {
  outcome: CaptureOutcome;
  reason?: string | null;
  instrumentation?: RecordInstrumentation | null;
}

export interface CaptureRecord extends CaptureRequest {
  requestId: string;
  orgName: string;
  kind: CaptureKind;
  requester: string;
  status: CaptureStatus;
  outcome: CaptureOutcome | null;
  reason: string | null;
  instrumentation: RecordInstrumentation | null;
  createdAt: number;
  updatedAt: number;
}

export interface QueuePolicy {
  /** Newly queued requests allowed per organization per window. */
  limit: number;
  windowMs: number;
  now: number;
}

export type QueueResult =
  | { kind: "queued"; requestId: string }
  | { kind: "deduped"; requestId: string }
  | { kind: "rate_limited"; retryAfterSeconds: number };

export class StoreError extends Error {
  constructor(
    message: string,
    readonly code: "not_found" | "conflict" | "invalid",
  ) {
    super(message);
  }
}
