// Dispatch for several replicas on one PostgreSQL: the same rules as dispatcher.ts (daemon-set
// routing, per-node answers merged into one outcome, reconnect grace, ack and result timeouts),
// with the in-flight state in the store instead of this process:
//
// - Work arrives by LISTEN/NOTIFY: a queued request wakes every replica; a replica claims a batch
//   with FOR UPDATE SKIP LOCKED and writes one order row per live Profiler of the tenant, wherever
//   its tunnel is, then notifies the replicas holding those tunnels, which send them.
// - A Profiler's answers are recorded by the replica holding its tunnel; the answer that completes
//   the merge finishes the request, under the request's row lock, so exactly once.
// - Each replica renews a lease; the tunnels of a replica whose lease runs out count as
//   disconnected, so their Profilers get the reconnect grace on another replica and then time out.
//   Nothing is re-queued at start: another replica's in-flight requests stay its Profilers'.
// - The timers are store queries run by every replica; recording a timeout twice is harmless
//   because the first final answer wins.

import type { CaptureRecord } from "../store/types.ts";
import type { ProfilerMessage } from "../../protocol/tunnel.ts";
import type { TunnelSession } from "../tunnel/listener.ts";
import type { ClusterDispatchStore, ClusterTimeouts, Finished, LocalOrder } from "./cluster-store.ts";
import { ACK_TIMEOUT_MS, RECONNECT_GRACE_MS, RESULT_GRACE_MS, type DispatchOptions } from "./dispatcher.ts";
import { bridgeLocal } from "./local-bridge.ts";
import type { NodeAnswer } from "./merge.ts";
import { nodeAnswer } from "./node-answer.ts";
import { answerReason } from "./order-rules.ts";

export const LEASE_MS = 10_000;
const HEARTBEAT_MS = 2_000;
const SWEEP_MS = 1_000;
/** A safety net only: LISTEN/NOTIFY wakes the claim loop as work arrives. */
const SAFETY_CLAIM_MS = 5_000;
const CLAIM_BATCH = 100;

interface Local {
  session: TunnelSession;
  /** request ids already sent on this tunnel connection: never twice on one connection */
  sent: Set<string>;
}

export interface ClusterDispatcherOptions extends DispatchOptions {
  cluster: ClusterDispatchStore;
  timeouts?: Partial<ClusterTimeouts>;
}

export class ClusterDispatcher {
  private readonly local = new Map<string, Local>();
  private readonly cluster: ClusterDispatchStore;
  private readonly timeouts: ClusterTimeouts;
  private readonly now: () => number;
  private readonly timers: Array<ReturnType<typeof setInterval>> = [];
  private claiming = false;
  private claimAgain = false;
  private stopped = false;

  constructor(private readonly opts: ClusterDispatcherOptions) {
    this.cluster = opts.cluster;
    this.now = opts.now ?? Date.now;
    this.timeouts = {
      leaseMs: LEASE_MS,
      reconnectGraceMs: RECONNECT_GRACE_MS,
      ackTimeoutMs: ACK_TIMEOUT_MS,
      resultGraceMs: RESULT_GRACE_MS,
      ...opts.timeouts,
    };
  }

  get replicaId(): string {
    return this.cluster.replicaId;
  }

  async start(): Promise<void> {
    await this.cluster.heartbeat(this.timeouts.leaseMs, Date.now());
    await this.cluster.subscribe(
      () => this.kick(),
      () => void this.deliver(),
    );
    this.every(HEARTBEAT_MS, async () => {
      const live = [...this.local.values()].map((l) => ({ orgId: l.session.orgId, instanceId: l.session.instanceId }));
      const { reaped, revived } = await this.cluster.heartbeat(this.timeouts.leaseMs, Date.now(), live);
      if (reaped) this.opts.logger.warn({ tunnels: reaped }, "tunnels of a replica that stopped renewing its lease count as disconnected");
      if (revived) this.opts.logger.warn({ tunnels: revived }, "this replica was taken for dead while slow; its open tunnels are up again");
    });
    this.every(SWEEP_MS, () => this.sweep());
    this.every(SAFETY_CLAIM_MS, async () => this.kick());
    this.opts.logger.info({ replica_id: this.replicaId }, "dispatch: replica joined");
    this.kick();
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.splice(0)) clearInterval(t);
    void this.cluster.leave(Date.now()).catch(() => {});
  }

  liveProfilers(orgName: string): string[] {
    return [...this.local.values()].filter((l) => l.session.orgName === orgName).map((l) => l.session.instanceId);
  }

  /** Claim queued work now (a request was queued or a Profiler connected). */
  kick(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = true;
    void (async () => {
      try {
        while ((await this.cluster.claimQueued(CLAIM_BATCH, this.now())) === CLAIM_BATCH) {}
      } catch (err) {
        this.opts.logger.error({ err: (err as Error).message }, "dispatch: claim failed");
      } finally {
        this.claiming = false;
        if (this.claimAgain) {
          this.claimAgain = false;
          this.kick();
        }
      }
    })();
  }

  /** Settles once the store counts the Profiler live: a request claimed before that would not
   *  be ordered to it (order rows are written for the Profilers live at claim time). */
  up(session: TunnelSession, running: readonly string[]): Promise<void> {
    const key = keyOf(session.orgId, session.instanceId);
    const entry: Local = { session, sent: new Set() };
    this.local.set(key, entry);
    return (async () => {
      const { send, restarted } = await this.cluster.sessionUp(session.orgId, session.instanceId, running, this.now());
      for (const o of send) this.send(o, true);
      for (const id of restarted) {
        await this.record(id, session.orgId, session.instanceId, { state: "failed", reason: answerReason.restarted(session.instanceId) }, null);
      }
      await this.deliver();
      this.kick();
    })().catch((err: Error) => this.opts.logger.error({ err: err.message, instance_id: session.instanceId }, "dispatch: could not register the tunnel"));
  }

  down(session: TunnelSession, why: string): void {
    const key = keyOf(session.orgId, session.instanceId);
    if (this.local.get(key)?.session !== session) return; // an older connection of a reconnected Profiler
    this.local.delete(key);
    this.opts.logger.warn({ org: session.orgName, instance_id: session.instanceId, why }, "profiler disconnected");
    void this.cluster
      .sessionDown(session.orgId, session.instanceId, why, this.now())
      .catch((err: Error) => this.opts.logger.error({ err: err.message }, "dispatch: could not record the disconnect"));
  }

  message(session: TunnelSession, msg: Exclude<ProfilerMessage, { type: "hello" | "heartbeat" }>): void {
    if (msg.type === "local_capture") {
      void bridgeLocal(session, msg, this.opts.onLocalCapture);
      return;
    }
    const { answer, profile } = nodeAnswer(msg, this.now());
    void this.record(msg.request_id, session.orgId, session.instanceId, answer, profile);
  }

  private async record(requestId: string, orgId: number, instanceId: string, a: NodeAnswer, profile: Uint8Array | null): Promise<void> {
    try {
      const r = await this.cluster.answer(requestId, orgId, instanceId, a, profile, this.now());
      if (r.kind === "unknown") this.opts.logger.warn({ request_id: requestId, instance_id: instanceId }, "answer for an unknown capture ignored");
      else if (r.kind === "finished") await this.finished(r.finished);
    } catch (err) {
      this.opts.logger.error({ request_id: requestId, err: (err as Error).message }, "dispatch: could not record the answer");
    }
  }

  private async finished(f: Finished): Promise<void> {
    const record: CaptureRecord = f.record;
    if (f.merged.outcome === "pushed" && f.profile && this.opts.onProfile) {
      await this.opts.onProfile(record, f.profile, f.merged.from).catch((err: Error) =>
        this.opts.logger.error({ request_id: record.requestId, err: err.message }, "could not store or diff the pushed profile"),
      );
    }
    this.opts.logger.info({ request_id: record.requestId, outcome: f.merged.outcome }, "capture recorded");
  }

  /** Sends the orders waiting for tunnels this replica holds. */
  private async deliver(): Promise<void> {
    try {
      for (const o of await this.cluster.takeUnsent(this.now())) this.send(o, false);
    } catch (err) {
      this.opts.logger.error({ err: (err as Error).message }, "dispatch: could not read orders");
    }
  }

  private send(o: LocalOrder, redispatch: boolean): void {
    const l = this.local.get(keyOf(o.orgId, o.instanceId));
    // Gone meanwhile: the order stays pending and is sent again when the Profiler reconnects.
    if (!l || l.sent.has(o.order.request_id)) return;
    l.sent.add(o.order.request_id);
    l.session.send({ type: "capture", order: o.order });
    this.opts.logger.info({ request_id: o.order.request_id, instance_id: o.instanceId, redispatch }, "capture dispatched");
  }

  private async sweep(): Promise<void> {
    for (const o of await this.cluster.overdue(this.timeouts, this.now())) {
      await this.record(o.requestId, o.orgId, o.instanceId, { state: "failed", reason: o.reason }, null);
    }
  }

  private every(ms: number, fn: () => Promise<void>): void {
    this.timers.push(
      setInterval(() => {
        fn().catch((err: Error) => this.opts.logger.error({ err: err.message }, "dispatch: periodic task failed"));
      }, ms),
    );
  }

}

const keyOf = (orgId: number, instanceId: string) => `${orgId}/${instanceId}`;
