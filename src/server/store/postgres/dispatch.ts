// Dispatch state shared by replicas: replica leases, which replica holds each Profiler's tunnel,
// and one row per (request, Profiler) with that Profiler's answer. Implements ClusterDispatchStore.
import type { SQL } from "bun";
import type { AnswerResult, ClusterDispatchStore, ClusterTimeouts, LocalOrder, Overdue } from "../../dispatch/cluster-store.ts";
import { mergeAnswers, type NodeAnswer } from "../../dispatch/merge.ts";
import { toRecordInstrumentation } from "../../dispatch/merge.ts";
import { captureOrder, timeoutReason } from "../../dispatch/order-rules.ts";
import { WORK_CHANNEL } from "./captures.ts";
import { SELECT_CAPTURE, toCapture, type PgCaptureRow } from "./rows.ts";

/** NOTIFY channel: payload is the replica id that has orders waiting for its tunnels. */
export const ORDERS_CHANNEL = "runner_orders";

interface OrderRow extends Pick<PgCaptureRow, "request_id" | "workload" | "version" | "env" | "kind" | "duration_sec" | "warmup_sec"> {
  org_id: string;
  instance_id: string;
}

const toLocalOrder = (r: OrderRow): LocalOrder => ({
  orgId: Number(r.org_id),
  instanceId: r.instance_id,
  order: captureOrder(r.request_id, { workload: r.workload, version: r.version, env: r.env, kind: r.kind, durationSec: r.duration_sec, warmupSec: r.warmup_sec }),
});

export class PgDispatch implements ClusterDispatchStore {
  readonly replicaId = Bun.randomUUIDv7();
  private subscriptions: Array<{ unlisten(): Promise<void> }> = [];
  private leaving: Promise<void> | null = null;

  constructor(
    private readonly sql: SQL,
    private readonly ready: Promise<void>,
  ) {}

  async subscribe(onWork: () => void, onOrders: () => void): Promise<void> {
    await this.ready;
    // Re-subscribed by the client after a lost connection; `onlisten` then runs again, and a
    // notification missed meanwhile is made up for by running the handler at that moment.
    this.subscriptions.push(await this.sql.listen(WORK_CHANNEL, () => onWork(), () => onWork()));
    this.subscriptions.push(
      await this.sql.listen(ORDERS_CHANNEL, (payload) => payload === this.replicaId && onOrders(), () => onOrders()),
    );
  }

  async heartbeat(leaseMs: number, now: number, live: ReadonlyArray<{ orgId: number; instanceId: string }> = []) {
    await this.ready;
    await this.sql`
      INSERT INTO replicas (replica_id, started_at, heartbeat_at) VALUES (${this.replicaId}, ${now}, ${now})
      ON CONFLICT (replica_id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at`;
    // Taken for dead while only slow (a stalled event loop): the tunnels still open here are up.
    let revived = 0;
    const reapedHere = await this.sql`
      SELECT org_id, instance_id FROM tunnel_sessions WHERE replica_id = ${this.replicaId} AND down_at IS NOT NULL`;
    for (const r of reapedHere as Array<{ org_id: string; instance_id: string }>) {
      if (!live.some((l) => l.orgId === Number(r.org_id) && l.instanceId === r.instance_id)) continue;
      const res = await this.sql`
        UPDATE tunnel_sessions SET down_at = NULL, down_why = NULL
         WHERE org_id = ${r.org_id} AND instance_id = ${r.instance_id} AND replica_id = ${this.replicaId}`;
      revived += res.count;
    }
    // Tunnels held by a replica whose lease ran out are down from now: their Profilers get the
    // reconnect grace to show up on another replica before their answers count as failed.
    const reaped = await this.sql`
      UPDATE tunnel_sessions s SET down_at = ${now}, down_why = 'its replica ' || s.replica_id || ' stopped renewing its lease'
       WHERE s.down_at IS NULL AND s.replica_id <> ${this.replicaId}
         AND NOT EXISTS (SELECT 1 FROM replicas r WHERE r.replica_id = s.replica_id AND r.heartbeat_at >= ${now - leaseMs})`;
    await this.sql`DELETE FROM replicas WHERE heartbeat_at < ${now - 24 * 3_600_000}`;
    return { reaped: reaped.count, revived };
  }

  async sessionUp(orgId: number, instanceId: string, running: readonly string[], now: number) {
    await this.ready;
    return this.sql.begin(async (tx) => {
      await tx`
        INSERT INTO tunnel_sessions (org_id, instance_id, replica_id, connected_at) VALUES (${orgId}, ${instanceId}, ${this.replicaId}, ${now})
        ON CONFLICT (org_id, instance_id) DO UPDATE
          SET replica_id = EXCLUDED.replica_id, connected_at = EXCLUDED.connected_at, down_at = NULL, down_why = NULL`;
      const rows = await tx`
        SELECT d.org_id, d.instance_id, d.state, c.request_id, c.workload, c.version, c.env, c.kind, c.duration_sec, c.warmup_sec
          FROM dispatch_orders d JOIN capture_requests c ON c.request_id = d.request_id
         WHERE d.org_id = ${orgId} AND d.instance_id = ${instanceId} AND d.state IN ('pending', 'running') AND c.status = 'running'
         ORDER BY c.created_at`;
      const send: LocalOrder[] = [];
      const restarted: string[] = [];
      for (const r of rows as Array<OrderRow & { state: string }>) {
        if (running.includes(r.request_id)) continue; // still measuring: keep waiting for its result
        if (r.state === "running") {
          restarted.push(r.request_id);
          continue;
        }
        // Not acknowledged yet (new, or sent to a tunnel that went away): send it again.
        await tx`UPDATE dispatch_orders SET sent_at = ${now}, sent_count = sent_count + 1
                  WHERE request_id = ${r.request_id} AND instance_id = ${instanceId}`;
        send.push(toLocalOrder(r));
      }
      return { send, restarted };
    });
  }

  async sessionDown(orgId: number, instanceId: string, why: string, now: number): Promise<void> {
    await this.ready;
    // Only if the tunnel is still ours: the Profiler may already be back on another replica.
    await this.sql`
      UPDATE tunnel_sessions SET down_at = ${now}, down_why = ${why}
       WHERE org_id = ${orgId} AND instance_id = ${instanceId} AND replica_id = ${this.replicaId} AND down_at IS NULL`;
  }

  async connectedProfilers(orgName: string): Promise<string[]> {
    await this.ready;
    const rows = await this.sql`
      SELECT s.instance_id FROM tunnel_sessions s JOIN orgs o ON o.id = s.org_id
       WHERE o.name = ${orgName} AND s.down_at IS NULL ORDER BY s.instance_id`;
    return (rows as Array<{ instance_id: string }>).map((r) => r.instance_id);
  }

  async claimQueued(limit: number, now: number): Promise<number> {
    await this.ready;
    return this.sql.begin(async (tx) => {
      // SKIP LOCKED: replicas claiming at the same moment take disjoint rows, so each request is
      // moved to running, and its orders written, by exactly one of them.
      const [r] = await tx`
        WITH picked AS (
          SELECT c.request_id FROM capture_requests c
           WHERE c.status = 'queued'
             AND EXISTS (SELECT 1 FROM tunnel_sessions s WHERE s.org_id = c.org_id AND s.down_at IS NULL)
           ORDER BY c.created_at, c.request_id
           LIMIT ${limit}
           FOR UPDATE OF c SKIP LOCKED
        ), claimed AS (
          UPDATE capture_requests c SET status = 'running', claimed_by = ${this.replicaId}, updated_at = ${now}
            FROM picked WHERE c.request_id = picked.request_id
          RETURNING c.request_id, c.org_id
        ), orders AS (
          INSERT INTO dispatch_orders (request_id, org_id, instance_id, state, dispatched_at)
          SELECT claimed.request_id, claimed.org_id, s.instance_id, 'pending', ${now}
            FROM claimed JOIN tunnel_sessions s ON s.org_id = claimed.org_id AND s.down_at IS NULL
          RETURNING org_id, instance_id
        )
        SELECT (SELECT count(*)::int FROM claimed) AS claimed,
               (SELECT string_agg(DISTINCT s.replica_id, ',') FROM orders o
                  JOIN tunnel_sessions s ON s.org_id = o.org_id AND s.instance_id = o.instance_id) AS holders`;
      // Delivered at commit: each replica holding one of those tunnels sends its orders.
      for (const h of String(r.holders ?? "").split(",").filter(Boolean)) await tx`SELECT pg_notify(${ORDERS_CHANNEL}, ${h})`;
      return r.claimed as number;
    });
  }

  async takeUnsent(now: number): Promise<LocalOrder[]> {
    await this.ready;
    const rows = await this.sql`
      WITH taken AS (
        UPDATE dispatch_orders d SET sent_at = ${now}, sent_count = d.sent_count + 1
          FROM tunnel_sessions s
         WHERE s.replica_id = ${this.replicaId} AND s.down_at IS NULL
           AND d.org_id = s.org_id AND d.instance_id = s.instance_id AND d.state = 'pending' AND d.sent_at IS NULL
        RETURNING d.org_id, d.instance_id, d.request_id
      )
      SELECT t.org_id, t.instance_id, c.request_id, c.workload, c.version, c.env, c.kind, c.duration_sec, c.warmup_sec
        FROM taken t JOIN capture_requests c ON c.request_id = t.request_id ORDER BY c.created_at`;
    return (rows as OrderRow[]).map(toLocalOrder);
  }

  async answer(requestId: string, orgId: number, instanceId: string, a: NodeAnswer, profileGz: Uint8Array | null, now: number): Promise<AnswerResult> {
    await this.ready;
    return this.sql.begin(async (tx): Promise<AnswerResult> => {
      // The request row lock orders every answer to this request, whichever replica records it.
      const [req] = await tx`SELECT status FROM capture_requests WHERE request_id = ${requestId} AND org_id = ${orgId} FOR UPDATE`;
      if (!req) return { kind: "unknown" };
      const [row] = await tx`SELECT state FROM dispatch_orders WHERE request_id = ${requestId} AND instance_id = ${instanceId}`;
      if (!row) return { kind: "unknown" };
      if (req.status !== "running" || (row.state !== "pending" && row.state !== "running")) return { kind: "recorded" }; // first final answer wins
      if (a.state === "running") {
        await tx`UPDATE dispatch_orders SET state = 'running', running_since = ${now}
                  WHERE request_id = ${requestId} AND instance_id = ${instanceId}`;
        return { kind: "recorded" };
      }
      await tx`UPDATE dispatch_orders SET state = ${a.state}, answer = ${JSON.stringify(a)}, profile_gz = ${profileGz}, answered_at = ${now}
                WHERE request_id = ${requestId} AND instance_id = ${instanceId}`;
      const all = await tx`SELECT instance_id, state, answer, running_since FROM dispatch_orders WHERE request_id = ${requestId}`;
      const answers = new Map<string, NodeAnswer>();
      for (const r of all as Array<{ instance_id: string; state: string; answer: string | null; running_since: string | null }>) {
        if (r.state === "pending") answers.set(r.instance_id, { state: "pending" });
        else if (r.state === "running") answers.set(r.instance_id, { state: "running", since: Number(r.running_since) });
        else answers.set(r.instance_id, JSON.parse(r.answer!) as NodeAnswer);
      }
      const merged = mergeAnswers(answers);
      if (!merged.done) return { kind: "recorded" };
      const instrumentation =
        merged.instrumentation ? toRecordInstrumentation(merged.instrumentation) : null;
      await tx`
        UPDATE capture_requests SET status = 'done', outcome = ${merged.outcome}, reason = ${merged.reason},
               instrumentation = ${instrumentation ? JSON.stringify(instrumentation) : null}, updated_at = ${now}
         WHERE request_id = ${requestId}`;
      let profile: Uint8Array | null = null;
      if (merged.outcome === "pushed") {
        const [p] = await tx`SELECT profile_gz FROM dispatch_orders WHERE request_id = ${requestId} AND instance_id = ${merged.from}`;
        profile = p?.profile_gz ? new Uint8Array(p.profile_gz) : null;
      }
      // Kept only until stored as the record's profile; answers stay for the record's history.
      await tx`UPDATE dispatch_orders SET profile_gz = NULL WHERE request_id = ${requestId}`;
      const [rec] = await tx.unsafe(`${SELECT_CAPTURE} WHERE c.request_id = $1`, [requestId]);
      return { kind: "finished", finished: { record: toCapture(rec as PgCaptureRow), merged, profile } };
    });
  }

  async overdue(t: ClusterTimeouts, now: number): Promise<Overdue[]> {
    await this.ready;
    const rows = await this.sql`
      SELECT d.request_id, d.org_id, d.instance_id, d.state, s.down_at, s.down_why
        FROM dispatch_orders d
        JOIN capture_requests c ON c.request_id = d.request_id AND c.status = 'running'
        LEFT JOIN tunnel_sessions s ON s.org_id = d.org_id AND s.instance_id = d.instance_id
       WHERE d.state IN ('pending', 'running') AND (
             s.instance_id IS NULL
          OR (s.down_at IS NOT NULL AND s.down_at < ${now - t.reconnectGraceMs})
          OR (s.down_at IS NULL AND d.state = 'pending' AND d.dispatched_at < ${now - t.ackTimeoutMs})
          OR (s.down_at IS NULL AND d.state = 'running'
              AND d.running_since < ${now - t.resultGraceMs} - (c.warmup_sec + c.duration_sec) * 1000))`;
    return (rows as Array<{ request_id: string; org_id: string; instance_id: string; state: string; down_at: string | null; down_why: string | null }>).map(
      (r) => {
        const i = r.instance_id;
        const reason =
          r.down_at !== null
            ? timeoutReason.lost(i, r.down_why ?? "tunnel closed", t.reconnectGraceMs)
            : r.state === "pending"
              ? timeoutReason.unacknowledged(i, t.ackTimeoutMs)
              : timeoutReason.noResult(i, t.resultGraceMs);
        return { requestId: r.request_id, orgId: Number(r.org_id), instanceId: i, reason };
      },
    );
  }

  leave(now: number): Promise<void> {
    this.leaving = this.leaveNow(now);
    return this.leaving;
  }

  private async leaveNow(now: number): Promise<void> {
    await this.ready;
    await this.sql`UPDATE tunnel_sessions SET down_at = ${now}, down_why = 'its replica stopped'
                    WHERE replica_id = ${this.replicaId} AND down_at IS NULL`;
    await this.sql`DELETE FROM replicas WHERE replica_id = ${this.replicaId}`;
  }

  async close(): Promise<void> {
    await this.leaving?.catch(() => {});
    for (const s of this.subscriptions.splice(0)) await s.unlisten().catch(() => {});
  }
}
