// The shared dispatch state on PostgreSQL (store/postgres/dispatch.ts), driven directly with
// several replicas' views of one database: claims are disjoint under concurrency, orders reach the
// replica holding each tunnel once, answers merge once, and leases and timeouts decide the rest.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { PostgresStore } from "../../src/server/store/postgres/postgres-store.ts";
import type { ClusterTimeouts } from "../../src/server/dispatch/cluster-store.ts";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";

const base = postgresUrl();
const d = base ? describe : describe.skip;
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const TIMEOUTS: ClusterTimeouts = { leaseMs: 10_000, reconnectGraceMs: 20_000, ackTimeoutMs: 30_000, resultGraceMs: 60_000 };

d("PostgreSQL dispatch state", () => {
  let db: { url: string; drop(): Promise<void> };
  let replicas: PostgresStore[] = [];
  let orgId = 0;
  const queue = (s: PostgresStore, version: string, now = T0) =>
    s.queueCapture(orgId, "ci", { workload: "w", version, env: "", kind: "head", durationSec: 10, warmupSec: 0 }, { limit: 1000, windowMs: HOUR, now });

  beforeAll(async () => {
    db = await createTestDatabase(base!, "dispatch");
  });
  afterAll(async () => {
    for (const r of replicas) await r.close();
    await db?.drop();
  });
  beforeEach(async () => {
    for (const r of replicas) await r.close();
    replicas = [0, 1, 2].map(() => new PostgresStore(db.url, { max: 6 }));
    await replicas[0]!.ready;
    for (const t of ["dispatch_orders", "tunnel_sessions", "replicas", "capture_requests", "instances", "orgs"]) await replicas[0]!.sql.unsafe(`DELETE FROM ${t}`);
    orgId = (await replicas[0]!.createOrg(`acme`)).id;
    for (const r of replicas) await r.cluster.heartbeat(TIMEOUTS.leaseMs, T0);
  });

  test("three replicas claiming 300 requests at once take each exactly once", async () => {
    const [a, b] = replicas as [PostgresStore, PostgresStore, PostgresStore];
    await a.cluster.sessionUp(orgId, "node-a", [], T0);
    await b.cluster.sessionUp(orgId, "node-b", [], T0);
    for (let i = 0; i < 300; i++) await queue(a, `v${i}`, T0 + i);
    const claimed = await Promise.all(replicas.flatMap((r) => Array.from({ length: 8 }, () => r.cluster.claimQueued(25, T0 + 1000))));
    let more = 0;
    while ((more = await replicas[2]!.cluster.claimQueued(100, T0 + 1000)) > 0) claimed.push(more);
    expect(claimed.reduce((x, y) => x + y, 0)).toBe(300);
    const [{ n, d: distinct }] = await a.sql`SELECT count(*)::int AS n, count(DISTINCT request_id)::int AS d FROM dispatch_orders`;
    expect(n).toBe(600); // one order per (request, live Profiler)
    expect(distinct).toBe(300);
    // each holder gets its own orders, once
    const toA = await a.cluster.takeUnsent(T0 + 1001);
    const toB = await b.cluster.takeUnsent(T0 + 1001);
    expect(toA).toHaveLength(300);
    expect(toA.every((o) => o.instanceId === "node-a")).toBe(true);
    expect(toB.every((o) => o.instanceId === "node-b")).toBe(true);
    expect(await a.cluster.takeUnsent(T0 + 1002)).toEqual([]);
    expect(await replicas[2]!.cluster.takeUnsent(T0 + 1002)).toEqual([]); // holds no tunnel
  });

  test("requests of an org with no live Profiler stay queued", async () => {
    await queue(replicas[0]!, "v1");
    expect(await replicas[1]!.cluster.claimQueued(10, T0)).toBe(0);
    await replicas[1]!.cluster.sessionUp(orgId, "node-a", [], T0);
    await replicas[1]!.cluster.sessionDown(orgId, "node-a", "closed", T0 + 1);
    expect(await replicas[1]!.cluster.claimQueued(10, T0 + 2)).toBe(0);
    expect((await replicas[0]!.listCaptures("acme"))[0]!.status).toBe("queued");
  });

  test("answers from two replicas merge once; the last one finishes the record", async () => {
    const [a, b] = replicas as [PostgresStore, PostgresStore, PostgresStore];
    await a.cluster.sessionUp(orgId, "node-a", [], T0);
    await b.cluster.sessionUp(orgId, "node-b", [], T0);
    const q = await queue(a, "v1");
    if (q.kind !== "queued") throw new Error("not queued");
    expect(await replicas[2]!.cluster.claimQueued(10, T0 + 1)).toBe(1);
    expect((await a.cluster.answer(q.requestId, orgId, "node-a", { state: "running", since: T0 + 2 }, null, T0 + 2)).kind).toBe("recorded");
    expect((await b.cluster.answer(q.requestId, orgId, "node-b", { state: "refused", reason: "not listed" }, null, T0 + 3)).kind).toBe("recorded");
    const instrumentation = { requested: ["cpu" as const], attached: ["cpu" as const], not_attached: [] };
    const done = await a.cluster.answer(q.requestId, orgId, "node-a", { state: "pushed", instrumentation }, new Uint8Array([7, 7]), T0 + 4);
    expect(done.kind).toBe("finished");
    if (done.kind !== "finished") return;
    expect(done.finished.record).toMatchObject({ status: "done", outcome: "pushed" });
    expect(done.finished.record.instrumentation).toEqual({ probes_requested: 1, probes_attached: 1, missing: [] });
    expect(Array.from(done.finished.profile!)).toEqual([7, 7]);
    // a late or repeated answer changes nothing; a stranger's is unknown
    expect((await b.cluster.answer(q.requestId, orgId, "node-b", { state: "failed", reason: "x" }, null, T0 + 5)).kind).toBe("recorded");
    expect((await b.cluster.answer(q.requestId, orgId, "node-z", { state: "failed", reason: "x" }, null, T0 + 5)).kind).toBe("unknown");
    expect((await b.cluster.answer("nope", orgId, "node-b", { state: "failed", reason: "x" }, null, T0 + 5)).kind).toBe("unknown");
    expect((await a.getCapture(q.requestId))!.outcome).toBe("pushed");
  });

  test("a reconnecting Profiler gets unacknowledged orders again, keeps the ones it still runs, fails the ones it lost", async () => {
    const [a, b] = replicas as [PostgresStore, PostgresStore, PostgresStore];
    await a.cluster.sessionUp(orgId, "node-a", [], T0);
    const ids: string[] = [];
    for (const v of ["v1", "v2", "v3"]) {
      const q = await queue(a, v);
      if (q.kind === "queued") ids.push(q.requestId);
    }
    await a.cluster.claimQueued(10, T0 + 1);
    await a.cluster.takeUnsent(T0 + 1);
    await a.cluster.answer(ids[1]!, orgId, "node-a", { state: "running", since: T0 + 2 }, null, T0 + 2);
    await a.cluster.answer(ids[2]!, orgId, "node-a", { state: "running", since: T0 + 2 }, null, T0 + 2);
    await a.cluster.sessionDown(orgId, "node-a", "tunnel closed", T0 + 3);
    // back on replica b: still running v2, lost v3 (restarted), never acknowledged v1
    const up = await b.cluster.sessionUp(orgId, "node-a", [ids[1]!], T0 + 4);
    expect(up.send.map((o) => o.order.request_id)).toEqual([ids[0]!]);
    expect(up.restarted).toEqual([ids[2]!]);
    // the old replica's late "down" does not take the tunnel away from b
    await a.cluster.sessionDown(orgId, "node-a", "late close", T0 + 5);
    const [s] = await a.sql`SELECT replica_id, down_at FROM tunnel_sessions WHERE instance_id = 'node-a'`;
    expect(s.replica_id).toBe(b.cluster.replicaId);
    expect(s.down_at).toBeNull();
  });

  test("timeouts: no ack, no result, and a dead replica's tunnels after lease + grace; a slow replica revives its own", async () => {
    const [a, b, c] = replicas as [PostgresStore, PostgresStore, PostgresStore];
    await a.cluster.sessionUp(orgId, "node-a", [], T0);
    await b.cluster.sessionUp(orgId, "node-b", [], T0);
    const q1 = await queue(a, "v1");
    if (q1.kind !== "queued") throw new Error("not queued");
    await c.cluster.claimQueued(10, T0);
    await b.cluster.answer(q1.requestId, orgId, "node-b", { state: "running", since: T0 }, null, T0);
    expect(await c.cluster.overdue(TIMEOUTS, T0 + 29_000)).toEqual([]);
    const noAck = await c.cluster.overdue(TIMEOUTS, T0 + 31_000);
    expect(noAck.map((o) => [o.instanceId, o.reason])).toEqual([["node-a", "Profiler node-a did not acknowledge the order within 30 s"]]);
    const noResult = await c.cluster.overdue(TIMEOUTS, T0 + 10_000 + 60_001);
    expect(noResult.map((o) => o.instanceId).sort()).toEqual(["node-a", "node-b"]);
    expect(noResult.find((o) => o.instanceId === "node-b")!.reason).toBe("Profiler node-b sent no result within the window plus 60 s");

    // replica a stops renewing its lease: c reaps its tunnel at T0+12 s; the grace runs from then
    const t1 = T0 + 12_000;
    expect((await b.cluster.heartbeat(TIMEOUTS.leaseMs, t1)).reaped).toBe(1);
    expect((await c.cluster.heartbeat(TIMEOUTS.leaseMs, t1)).reaped).toBe(0); // already down
    expect(await c.cluster.overdue(TIMEOUTS, t1 + 19_000)).toEqual([]);
    const lost = await c.cluster.overdue(TIMEOUTS, t1 + 20_001);
    expect(lost.find((o) => o.instanceId === "node-a")!.reason).toMatch(/^Profiler node-a lost mid-capture \(its replica \S+ stopped renewing its lease\) and did not come back within 20 s$/);
    // but a was only slow: its heartbeat, with the tunnel still open, marks it up again
    const back = await a.cluster.heartbeat(TIMEOUTS.leaseMs, t1 + 1000, [{ orgId, instanceId: "node-a" }]);
    expect(back.revived).toBe(1);
    const [s] = await a.sql`SELECT down_at FROM tunnel_sessions WHERE instance_id = 'node-a'`;
    expect(s.down_at).toBeNull();
  });
});

