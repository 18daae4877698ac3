// The control plane's persistence contract. Every method is async so that a PostgreSQL
// implementation can sit behind the same interface and pass the same contract suite
// (test/unit/store-contract.ts). One interface per table group; `Store` is their union.
import type { ProfilerStore } from "./profiler-store.ts";
import type { ReadTokenStore } from "./read-token-store.ts";
import type { RetentionStore } from "./retention-store.ts";
import type { UserStore } from "./user-store.ts";
import type { CaptureRequest } from "../../protocol/capture-request.ts";
import type {
  CaptureRecord,
  CaptureResult,
  CaptureTokenInfo,
  CaptureTokenPrincipal,
  Org,
  QueuePolicy,
  QueueResult,
} from "./types.ts";

export interface OrgStore {
  /** Throws StoreError("conflict") when the name is taken. */
  createOrg(name: string, now?: number): Promise<Org>;
  getOrg(name: string): Promise<Org | null>;
  /** Throws StoreError("not_found") for an unknown org. */
  setProfilerEnabled(name: string, enabled: boolean): Promise<Org>;
}

export interface TokenStore {
  /** Stores the hash of a new capture token. One active token per (org, name); conflict otherwise. */
  addCaptureToken(orgName: string, name: string, tokenHash: string, now?: number): Promise<void>;
  /** The active (unrevoked) token with this hash, with its org; null when none. */
  findCaptureToken(tokenHash: string): Promise<CaptureTokenPrincipal | null>;
  /** Revokes the active token of that name; not_found when there is none. */
  revokeCaptureToken(orgName: string, name: string, now?: number): Promise<void>;
  listCaptureTokens(orgName: string): Promise<CaptureTokenInfo[]>;
  addBootstrapToken(orgName: string, tokenHash: string, now?: number): Promise<void>;
  /** The org of the active bootstrap token with this hash; null when none. */
  findBootstrapToken(tokenHash: string): Promise<Org | null>;
}

export interface CaptureStore {
  /**
   * Atomically: return an identical in-flight request (deduped), else refuse when the org already
   * queued `policy.limit` new requests in the window (rate_limited), else insert (queued).
   * Only newly queued requests count toward the limit. Resolves only once the row is durable.
   */
  queueCapture(orgId: number, requester: string, request: CaptureRequest, policy: QueuePolicy): Promise<QueueResult>;
  getCapture(requestId: string): Promise<CaptureRecord | null>;
  /** Newest first. */
  listCaptures(orgName: string, limit?: number): Promise<CaptureRecord[]>;
  /** queued -> running. not_found / conflict when the request is unknown or not queued. */
  markCaptureRunning(requestId: string, now?: number): Promise<CaptureRecord>;
  /** queued|running -> done with an outcome. */
  completeCapture(requestId: string, result: CaptureResult, now?: number): Promise<CaptureRecord>;
}

export interface Store extends OrgStore, TokenStore, ReadTokenStore, RetentionStore, CaptureStore, ProfilerStore, UserStore {
  /** Cheap liveness probe for /healthz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
