// Several control-plane replicas on one PostgreSQL, as production runs them behind one address:
// three real `runner server` processes, two Profilers (the real tunnel client and identity code,
// answering orders themselves instead of running ptop) whose tunnels land on different replicas.
//
//   1,000 identical concurrent requests spread over the replicas -> one queued, 999 deduped to it
//   1,000 distinct concurrent requests for one org, one replica SIGKILLed mid-load
//     -> exactly 20 accepted in the hour window, every acknowledged one stored,
//        every stored one dispatched exactly once to each Profiler and recorded once
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PostgresStore } from "../../src/server/store/postgres/postgres-store.ts";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";
import { until } from "../helpers/until.ts";
import { admin, lastLine, startProfiler, startReplica, type Replica, type TestProfiler } from "../helpers/replicas.ts";

const base = postgresUrl();
const d = base ? describe : describe.skip;

type Outcome = { replica: number; status: number; body?: { request_id?: string; deduped?: boolean } } | { replica: number; error: string };

async function post(replica: Replica, index: number, token: string, body: unknown): Promise<Outcome> {
  try {
    const res = await fetch(`${replica.url}/api/profiling/captures`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { replica: index, status: res.status, body: (await res.json()) as { request_id?: string; deduped?: boolean } };
  } catch (err) {
    return { replica: index, error: (err as Error).message };
  }
}

d("three replicas on one PostgreSQL", () => {
  let db: { url: string; drop(): Promise<void> };
  let replicas: Replica[] = [];
  const dirs: string[] = [];
  const profilers: TestProfiler[] = [];
  let acmeToken = "";
  let dupToken = "";
  let store: PostgresStore;

  beforeAll(async () => {
    db = await createTestDatabase(base!, "replicas");
    expect(admin(db.url, "migrate")).toMatch(/schema at version \d+/);
    for (const org of ["acme", "dup"]) {
      admin(db.url, "org", "create", org);
      admin(db.url, "profiler", "enable", org);
    }
    acmeToken = lastLine(admin(db.url, "token", "create", "acme", "ci"));
    dupToken = lastLine(admin(db.url, "token", "create", "dup", "ci"));
    const bootstrap = lastLine(admin(db.url, "bootstrap-token", "create", "acme"));
    replicas = await Promise.all([0, 1, 2].map(() => startReplica(db.url)));
    // Two Profilers of acme, enrolled through replica 1, tunnels on replicas 0 and 2.
    for (const [i, r] of [0, 2].entries()) {
      const dir = mkdtempSync(join(tmpdir(), "runner-replica-profiler-"));
      dirs.push(dir);
      profilers.push(
        await startProfiler({
          dir, tenant: "acme", instanceId: `node-${i}`, bootstrapToken: bootstrap, enrolUrl: replicas[1]!.url, tunnelUrl: replicas[r]!.tunnelUrl,
          // answers like a Profiler whose target is not running on its node: running, then nothing to push
          onOrder: (order, client) => {
            client.send({ type: "answer", request_id: order.request_id, answer: "running" });
            setTimeout(() => client.send({ type: "result", request_id: order.request_id, outcome: "nothing_to_push", reason: `not running on node-${i}` }), 20);
          },
        }),
      );
    }
    store = new PostgresStore(db.url, { max: 4 });
    // welcome is sent before the replica has recorded the tunnel; wait until both are recorded
    await until("both tunnels recorded", 10_000, async () => {
      const [{ n }] = await store.sql`SELECT count(*)::int AS n FROM tunnel_sessions WHERE down_at IS NULL`;
      return n === 2;
    }, 100);
  }, 60_000);

  afterAll(async () => {
    for (const p of profilers) p.stop();
    for (const r of replicas) r.proc.kill("SIGTERM");
    await Promise.all(replicas.map((r) => r.proc.exited));
    await store?.close();
    await db?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 30_000);

  test("1,000 identical concurrent requests over three replicas queue exactly one", async () => {
    const body = { workload: "checkout", version: "7.0.0", env: "prod", duration_sec: 30, warmup_sec: 0 };
    // org "dup" has no Profiler connected: the request stays queued, so every repeat is in flight
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => post(replicas[i % 3]!, i % 3, dupToken, body)));
    const ok = results.filter((r): r is Extract<Outcome, { status: number }> => "status" in r && r.status === 202);
    expect(ok).toHaveLength(1000);
    expect(ok.filter((r) => r.body!.deduped === false)).toHaveLength(1);
    expect(new Set(ok.map((r) => r.body!.request_id)).size).toBe(1);
    const records = await store.listCaptures("dup");
    expect(records).toHaveLength(1);
    expect(records[0]!.status).toBe("queued");
  }, 60_000);

  test("1,000 distinct concurrent requests, one replica killed mid-load: 20 accepted, none lost, each dispatched once", async () => {
    let answered = 0;
    let killed = false;
    const victim = replicas[1]!;
    const results = await Promise.all(
      Array.from({ length: 1000 }, async (_, i) => {
        const r = await post(replicas[i % 3]!, i % 3, acmeToken, { workload: "checkout", version: `v${i}`, env: "prod", duration_sec: 5, warmup_sec: 0 });
        if (++answered === 150 && !killed) {
          killed = true;
          victim.proc.kill("SIGKILL");
        }
        return r;
      }),
    );
    expect(killed).toBe(true);
    await victim.proc.exited;
    const acked = results.filter((r): r is Extract<Outcome, { status: number }> => "status" in r && r.status === 202);
    const refused = results.filter((r) => "status" in r && r.status === 429);
    const failed = results.filter((r) => "error" in r);
    // only the killed replica may leave a request unanswered; nothing else but 202 or 429
    expect(failed.every((r) => r.replica === 1)).toBe(true);
    expect(acked.length + refused.length + failed.length).toBe(1000);
    expect(acked.every((r) => r.body!.deduped === false)).toBe(true);

    // exactly 20 in the hour window; every acknowledged request is among them
    const records = await store.listCaptures("acme");
    expect(records).toHaveLength(20);
    const stored = new Set(records.map((r) => r.requestId));
    for (const a of acked) expect(stored.has(a.body!.request_id!)).toBe(true);
    expect(acked.length).toBeLessThanOrEqual(20);

    // every stored request reaches both Profilers exactly once and is recorded with the merged outcome
    const deadline = Date.now() + 45_000;
    let done: typeof records = [];
    while (Date.now() < deadline) {
      done = (await store.listCaptures("acme")).filter((r) => r.status === "done");
      if (done.length === 20) break;
      await Bun.sleep(250);
    }
    expect(done).toHaveLength(20);
    for (const r of done) {
      expect(r.outcome).toBe("nothing_to_push");
      expect(r.reason).toContain("not running on node-");
    }
    for (const p of profilers) {
      expect([...p.received.keys()].sort()).toEqual([...stored].sort());
      expect([...p.received.values()].every((n) => n === 1)).toBe(true);
    }
    const [{ n }] = await store.sql`SELECT count(*)::int AS n FROM dispatch_orders d JOIN capture_requests c USING (request_id)
                                     JOIN orgs o ON o.id = c.org_id WHERE o.name = 'acme'`;
    expect(n).toBe(40);
  }, 120_000);
});
