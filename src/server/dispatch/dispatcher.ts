// Turns queued capture requests into capture orders on live Profilers and their answers into one
// outcome on the record.
//
// - A queued request goes to every live Profiler of its organization (daemon-set routing) and
//   waits while none is live; it drains as soon as one connects.
// - Each Profiler's answer is kept per node; when every node has a final answer the record gets
//   the merged outcome (merge.ts).
// - Nothing waits forever: a Profiler that disconnects has RECONNECT_GRACE_MS to come back and say
//   it is still running the capture; one that never acknowledges an order, or runs past the window
//   plus RESULT_GRACE_MS, is answered `failed` with the reason. An order a Profiler had not yet
//   acknowledged is sent again when it reconnects (redispatch).
// - In-flight state lives in this process; on start, requests a previous process left `running`
//   are put back in the queue and dispatched again. That holds for one server on the SQLite store
//   only: on PostgreSQL (several replicas) create.ts picks cluster-dispatcher.ts, with the same
//   rules and the in-flight state in the store, owned by replica leases instead.

import type { Logger } from "../../log.ts";
import type { CaptureOrder, ProfilerMessage } from "../../protocol/tunnel.ts";
import { StoreError, type CaptureRecord } from "../store/types.ts";
import type { TunnelEvents, TunnelSession } from "../tunnel/listener.ts";
import { bridgeLocal, type LocalCaptureHandler } from "./local-bridge.ts";
import type { LocalDispatchStore } from "./local-store.ts";
import { mergeAnswers, toRecordInstrumentation, type NodeAnswer } from "./merge.ts";
import { nodeAnswer } from "./node-answer.ts";
import { answerReason, captureOrder, timeoutReason } from "./order-rules.ts";

export const RECONNECT_GRACE_MS = 20_000;
export const ACK_TIMEOUT_MS = 30_000;
export const RESULT_GRACE_MS = 60_000;
const POLL_MS = 250;

/** What both dispatchers are given besides their store. */
export interface DispatchOptions {
  logger: Logger;
  /** A pushed profile arrived and its record is complete: store the profile and diff it. */
  onProfile?: (record: CaptureRecord, profileGz: Uint8Array, fromInstance: string) => Promise<void>;
  /** A sidecar's request bridged over the tunnel: answer it with the public API's rules. */
  onLocalCapture?: LocalCaptureHandler;
  now?: () => number;
}

export interface DispatcherOptions extends DispatchOptions {
  store: LocalDispatchStore;
}

interface Flight {
  record: CaptureRecord;
  order: CaptureOrder;
  orgName: string;
  answers: Map<string, NodeAnswer>;
  startedAt: number;
  lostTimers: Map<string, ReturnType<typeof setTimeout>>;
  profiles: Map<string, Uint8Array>;
}

export class Dispatcher implements Omit<TunnelEvents, "lookup"> {
  private readonly live = new Map<string, Map<string, TunnelSession>>();
  private readonly flights = new Map<string, Flight>();
  private draining = false;
  private again = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly now: () => number;

  constructor(private readonly opts: DispatcherOptions) {
    this.now = opts.now ?? Date.now;
  }

  async start(): Promise<void> {
    const requeued = await this.opts.store.requeueRunningCaptures();
    if (requeued) this.opts.logger.warn({ requeued }, "requests left running by a previous process were queued again");
    this.timer = setInterval(() => {
      this.kick();
      this.watchdog();
    }, POLL_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    for (const f of this.flights.values()) for (const t of f.lostTimers.values()) clearTimeout(t);
  }

  liveProfilers(orgName: string): string[] {
    return [...(this.live.get(orgName)?.keys() ?? [])];
  }

  /** Drain the queue now (a request was queued or a Profiler connected). */
  kick(): void {
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = true;
    void this.drain()
      .catch((err: Error) => this.opts.logger.error({ err: err.message }, "dispatch: drain failed"))
      .finally(() => {
        this.draining = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async drain(): Promise<void> {
    if (this.live.size === 0) return;
    // Only orgs with a live Profiler: the others' requests wait, and however many of them pile
    // up, they never fill the page and starve an org whose Profiler is here.
    const queued = await this.opts.store.listQueuedCaptures([...this.live.keys()], 500);
    for (const rec of queued) {
      const sessions = this.live.get(rec.orgName);
      if (!sessions || sessions.size === 0) continue; // its Profiler left meanwhile
      let running: CaptureRecord;
      try {
        running = await this.opts.store.markCaptureRunning(rec.requestId);
      } catch (err) {
        // Taken or finished meanwhile (no longer queued): skip it. Anything else — a database
        // that stopped answering — fails the drain, which logs it, and the next poll retries.
        if (err instanceof StoreError && (err.code === "conflict" || err.code === "not_found")) continue;
        throw err;
      }
      const order = captureOrder(running.requestId, running);
      const flight: Flight = {
        record: running,
        order,
        orgName: rec.orgName,
        answers: new Map(),
        startedAt: this.now(),
        lostTimers: new Map(),
        profiles: new Map(),
      };
      this.flights.set(order.request_id, flight);
      for (const [instance, session] of sessions) {
        flight.answers.set(instance, { state: "pending" });
        session.send({ type: "capture", order });
      }
      this.opts.logger.info({ request_id: order.request_id, org: rec.orgName, profilers: sessions.size }, "capture dispatched");
    }
  }

  /** Registers a connected Profiler; settled at once here (the cluster dispatcher's settles once
   *  the store has it, so a request queued after it is awaited is sure to reach it). */
  up(session: TunnelSession, running: readonly string[]): Promise<void> {
    let org = this.live.get(session.orgName);
    if (!org) this.live.set(session.orgName, (org = new Map()));
    org.set(session.instanceId, session);
    for (const [id, f] of this.flights) {
      const a = f.answers.get(session.instanceId);
      if (!a || (a.state !== "pending" && a.state !== "running")) continue;
      const timer = f.lostTimers.get(session.instanceId);
      if (timer) clearTimeout(timer);
      f.lostTimers.delete(session.instanceId);
      if (running.includes(id)) continue; // still measuring: resume waiting for its result
      if (a.state === "pending") session.send({ type: "capture", order: f.order }); // redispatch
      else this.answer(f, session.instanceId, { state: "failed", reason: answerReason.restarted(session.instanceId) });
    }
    this.kick();
    return Promise.resolve();
  }

  down(session: TunnelSession, why: string): void {
    const org = this.live.get(session.orgName);
    if (org?.get(session.instanceId) !== session) return; // an older connection of a reconnected Profiler
    org.delete(session.instanceId);
    if (org.size === 0) this.live.delete(session.orgName);
    this.opts.logger.warn({ org: session.orgName, instance_id: session.instanceId, why }, "profiler disconnected");
    for (const f of this.flights.values()) {
      const a = f.answers.get(session.instanceId);
      if (!a || (a.state !== "pending" && a.state !== "running")) continue;
      f.lostTimers.set(
        session.instanceId,
        setTimeout(() => {
          f.lostTimers.delete(session.instanceId);
          this.answer(f, session.instanceId, {
            state: "failed",
            reason: timeoutReason.lost(session.instanceId, why, RECONNECT_GRACE_MS),
          });
        }, RECONNECT_GRACE_MS),
      );
    }
  }

  message(session: TunnelSession, msg: Exclude<ProfilerMessage, { type: "hello" | "heartbeat" }>): void {
    if (msg.type === "local_capture") {
      void bridgeLocal(session, msg, this.opts.onLocalCapture);
      return;
    }
    const f = this.flights.get(msg.request_id);
    if (!f || f.orgName !== session.orgName || !f.answers.has(session.instanceId)) {
      this.opts.logger.warn({ request_id: msg.request_id, instance_id: session.instanceId }, "answer for an unknown capture ignored");
      return;
    }
    const { answer, profile } = nodeAnswer(msg, this.now());
    if (profile) f.profiles.set(session.instanceId, profile);
    this.answer(f, session.instanceId, answer);
  }

  private answer(f: Flight, instance: string, a: NodeAnswer): void {
    const prev = f.answers.get(instance);
    if (prev && prev.state !== "pending" && prev.state !== "running") return; // first final answer wins
    f.answers.set(instance, a);
    const merged = mergeAnswers(f.answers);
    if (!merged.done) return;
    this.flights.delete(f.order.request_id);
    for (const t of f.lostTimers.values()) clearTimeout(t);
    void this.finish(f, merged).catch((err: Error) =>
      this.opts.logger.error({ request_id: f.order.request_id, err: err.message }, "dispatch: could not record the outcome"),
    );
  }

  private async finish(f: Flight, merged: Extract<ReturnType<typeof mergeAnswers>, { done: true }>): Promise<void> {
    const id = f.order.request_id;
    if (merged.outcome === "pushed") {
      const record = await this.opts.store.completeCapture(id, {
        outcome: "pushed",
        reason: merged.reason,
        instrumentation: toRecordInstrumentation(merged.instrumentation),
      });
      const profile = f.profiles.get(merged.from);
      if (profile && this.opts.onProfile) {
        await this.opts.onProfile(record, profile, merged.from).catch((err: Error) =>
          this.opts.logger.error({ request_id: id, err: err.message }, "could not store or diff the pushed profile"),
        );
      }
    } else {
      await this.opts.store.completeCapture(id, {
        outcome: merged.outcome,
        reason: merged.reason,
        instrumentation: merged.instrumentation ? toRecordInstrumentation(merged.instrumentation) : null,
      });
    }
    this.opts.logger.info({ request_id: id, outcome: merged.outcome }, "capture recorded");
  }

  private watchdog(): void {
    const now = this.now();
    for (const f of this.flights.values()) {
      const windowMs = (f.order.warmup_sec + f.order.duration_sec) * 1000;
      for (const [instance, a] of f.answers) {
        if (a.state === "pending" && now - f.startedAt > ACK_TIMEOUT_MS && !f.lostTimers.has(instance)) {
          this.answer(f, instance, { state: "failed", reason: timeoutReason.unacknowledged(instance, ACK_TIMEOUT_MS) });
        } else if (a.state === "running" && now - a.since > windowMs + RESULT_GRACE_MS && !f.lostTimers.has(instance)) {
          this.answer(f, instance, {
            state: "failed",
            reason: timeoutReason.noResult(instance, RESULT_GRACE_MS),
          });
        }
      }
    }
  }
}
