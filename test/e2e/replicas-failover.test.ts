// Replica failure without a coordinator: in-flight state is in PostgreSQL, owned by leases.
//
// - a replica that starts while a capture runs does not take it back (no re-queue at start);
// - the replica holding two Profilers' tunnels is SIGKILLed mid-capture: the Profiler that comes back
//   on another replica (as behind one address) still saying it runs the capture is not sent it again
//   and its result counts; the one that never comes back is failed once the dead replica's lease and
//   the reconnect grace have run out. The request ends `done` exactly once, naming the lost Profiler.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LEASE_MS } from "../../src/server/dispatch/cluster-dispatcher.ts";
import { RECONNECT_GRACE_MS } from "../../src/server/dispatch/dispatcher.ts";
import { PostgresStore } from "../../src/server/store/postgres/postgres-store.ts";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";
import { until } from "../helpers/until.ts";
import { admin, lastLine, startProfiler, startReplica, type Replica, type TestProfiler } from "../helpers/replicas.ts";

const base = postgresUrl();
const d = base ? describe : describe.skip;

d("a replica dies mid-capture", () => {
  let db: { url: string; drop(): Promise<void> };
  const replicas: Replica[] = [];
  const profilers: TestProfiler[] = [];
  const dirs: string[] = [];
  let store: PostgresStore;

  beforeAll(async () => {
    db = await createTestDatabase(base!, "failover");
    store = new PostgresStore(db.url, { max: 2 });
    await store.ready;
  });
  afterAll(async () => {
    for (const p of profilers) p.stop();
    for (const r of replicas) r.proc.kill("SIGKILL");
    await Promise.all(replicas.map((r) => r.proc.exited));
    await store?.close();
    await db?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test("the returning Profiler keeps its capture; the lost one is failed after lease + grace; no re-queue", async () => {
    admin(db.url, "org", "create", "acme");
    admin(db.url, "profiler", "enable", "acme");
    const token = lastLine(admin(db.url, "token", "create", "acme", "ci"));
    const bootstrap = lastLine(admin(db.url, "bootstrap-token", "create", "acme"));
    const [a, b] = await Promise.all([startReplica(db.url), startReplica(db.url)]);
    replicas.push(a!, b!);
    // Both Profilers acknowledge and keep measuring: no result until the test says so.
    for (const id of ["node-p", "node-q"]) {
      const dir = mkdtempSync(join(tmpdir(), "runner-failover-"));
      dirs.push(dir);
      profilers.push(
        await startProfiler({
          dir, tenant: "acme", instanceId: id, bootstrapToken: bootstrap, enrolUrl: b!.url, tunnelUrl: a!.tunnelUrl,
          onOrder: (order, client) => client.send({ type: "answer", request_id: order.request_id, answer: "running" }),
        }),
      );
    }
    const [p, q] = profilers as [TestProfiler, TestProfiler];
    await until("both tunnels recorded", 15_000, async () => {
      const [{ n }] = await store.sql`SELECT count(*)::int AS n FROM tunnel_sessions WHERE down_at IS NULL`;
      return n === 2;
    });

    const res = await fetch(`${b!.url}/api/profiling/captures`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ workload: "checkout", version: "1.0.0", duration_sec: 5, warmup_sec: 0 }),
    });
    expect(res.status).toBe(202);
    const { request_id: id } = (await res.json()) as { request_id: string };
    await until("both Profilers running the capture", 15_000, async () => {
      const [{ n }] = await store.sql`SELECT count(*)::int AS n FROM dispatch_orders WHERE request_id = ${id} AND state = 'running'`;
      return n === 2;
    });

    // A new replica joining does not re-queue what others have in flight.
    const c = await startReplica(db.url);
    replicas.push(c);
    await Bun.sleep(1500);
    expect((await store.getCapture(id))!.status).toBe("running");

    // The replica holding both tunnels dies. p comes back on another replica, still measuring.
    a!.proc.kill("SIGKILL");
    await a!.proc.exited;
    const killedAt = Date.now();
    await p.reconnect(c.tunnelUrl, [id]);
    p.client.send({ type: "result", request_id: id, outcome: "nothing_to_push", reason: "the target exited before the window" });

    // q never returns: failed after the dead replica's lease runs out plus the reconnect grace.
    const done = await until("the record to finish", LEASE_MS + RECONNECT_GRACE_MS + 20_000, async () => {
      const r = await store.getCapture(id);
      return r?.status === "done" ? r : null;
    });
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(RECONNECT_GRACE_MS);
    expect(done.outcome).toBe("failed");
    expect(done.reason).toContain("node-q");
    expect(done.reason).toContain("lost mid-capture");
    expect(done.reason).toContain("stopped renewing its lease");
    expect(done.reason).not.toContain("node-p");
    // each Profiler got the order once: p said it was still running it, so it was not sent again
    expect(p.received.get(id)).toBe(1);
    expect(q.received.get(id)).toBe(1);
    const answers = await store.sql`SELECT instance_id, state FROM dispatch_orders WHERE request_id = ${id} ORDER BY instance_id`;
    expect(answers.map((r: { instance_id: string; state: string }) => `${r.instance_id}:${r.state}`)).toEqual(["node-p:nothing_to_push", "node-q:failed"]);
  }, 120_000);
});
