// What the multi-replica dispatcher needs from a shared store (PostgreSQL). Every piece of in-flight
// state lives in the store, so any replica can deliver an order, record an answer, time one out,
// or finish a request, and a replica that dies loses nothing but its tunnels.
import type { CaptureOrder } from "../../protocol/tunnel.ts";
import type { CaptureRecord } from "../store/types.ts";
import type { MergedOutcome, NodeAnswer } from "./merge.ts";

/** An order for a Profiler whose tunnel is on this replica. */
export interface LocalOrder {
  orgId: number;
  instanceId: string;
  order: CaptureOrder;
}

export type Finished = {
  record: CaptureRecord;
  merged: Extract<MergedOutcome, { done: true }>;
  /** the profile of `merged.from` when the outcome is pushed */
  profile: Uint8Array | null;
};

export type AnswerResult = { kind: "unknown" } | { kind: "recorded" } | { kind: "finished"; finished: Finished };

/** A (request, Profiler) whose answer is overdue, with the `failed` reason to record. */
export interface Overdue {
  requestId: string;
  orgId: number;
  instanceId: string;
  reason: string;
}

export interface ClusterTimeouts {
  leaseMs: number;
  reconnectGraceMs: number;
  ackTimeoutMs: number;
  resultGraceMs: number;
}

export interface ClusterDispatchStore {
  readonly replicaId: string;
  /** LISTEN: `onWork` when a request was queued anywhere, `onOrders` when orders wait for tunnels here. */
  subscribe(onWork: () => void, onOrders: () => void): Promise<void>;
  /**
   * Renews this replica's lease; marks the tunnels of replicas whose lease ran out as down. `live`:
   * the tunnels this replica holds, marked up again if another replica took this one for dead
   * while it was only slow.
   */
  heartbeat(leaseMs: number, now: number, live?: ReadonlyArray<{ orgId: number; instanceId: string }>): Promise<{ reaped: number; revived: number }>;
  /** This replica now holds the tunnel. Returns the orders to (re)send and the requests it no longer runs. */
  sessionUp(orgId: number, instanceId: string, running: readonly string[], now: number): Promise<{ send: LocalOrder[]; restarted: string[] }>;
  sessionDown(orgId: number, instanceId: string, why: string, now: number): Promise<void>;
  /** queued -> running for requests of orgs with a live Profiler (SKIP LOCKED), one order per live Profiler. */
  claimQueued(limit: number, now: number): Promise<number>;
  /** Orders not yet sent to the tunnels this replica holds; each is handed out once. */
  takeUnsent(now: number): Promise<LocalOrder[]>;
  /** Records one Profiler's answer; the answer that completes the merge finishes the request (once). */
  answer(requestId: string, orgId: number, instanceId: string, a: NodeAnswer, profileGz: Uint8Array | null, now: number): Promise<AnswerResult>;
  overdue(t: ClusterTimeouts, now: number): Promise<Overdue[]>;
  /** The Profilers of `orgName` whose tunnel is up now, on any replica. */
  connectedProfilers(orgName: string): Promise<string[]>;
  /** Clean shutdown: tunnels here are down now, the lease is released. */
  leave(now: number): Promise<void>;
}
