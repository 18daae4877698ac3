// A pushed profile across replicas: the request is queued on one replica, the Profiler's tunnel
// lands on another, the profile comes back there — and the record, the stored profile and the
// diff against the prior version are what every replica reads, as with one server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { PostgresStore } from "../../src/server/store/postgres/postgres-store.ts";
import type { CaptureOrder } from "../../src/protocol/tunnel.ts";
import { toStream } from "../../src/witness/stream.ts";
import type { DiffResult } from "../../src/witness/diff.ts";
import { makeProgram, rng, sampleCapture } from "../fixtures/profiles/synthetic.ts";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";
import { until } from "../helpers/until.ts";
import { admin, lastLine, startProfiler, startReplica, type Replica, type TestProfiler } from "../helpers/replicas.ts";

const base = postgresUrl();
const d = base ? describe : describe.skip;

d("a profile pushed through another replica", () => {
  let db: { url: string; drop(): Promise<void> };
  const replicas: Replica[] = [];
  let profiler: TestProfiler | undefined;
  let dir = "";
  let store: PostgresStore;

  beforeAll(async () => {
    db = await createTestDatabase(base!, "pushed");
    store = new PostgresStore(db.url, { max: 2 });
    await store.ready;
    dir = mkdtempSync(join(tmpdir(), "runner-pushed-"));
  });
  afterAll(async () => {
    profiler?.stop();
    for (const r of replicas) r.proc.kill("SIGKILL");
    await Promise.all(replicas.map((r) => r.proc.exited));
    await store?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("queued on one replica, pushed on another: the record, the profile and the diff against the prior version are stored", async () => {
    admin(db.url, "org", "create", "acme");
    admin(db.url, "profiler", "enable", "acme");
    const token = lastLine(admin(db.url, "token", "create", "acme", "ci"));
    const bootstrap = lastLine(admin(db.url, "bootstrap-token", "create", "acme"));
    const [a, b] = await Promise.all([startReplica(db.url), startReplica(db.url)]);
    replicas.push(a!, b!);

    // The Profiler measures "checkout": version 2 ships a regression that doubles `target`.
    const program = makeProgram({ seed: 21, stacks: 60, leaves: 20, cv: 0.01, targetShare: 0.2 });
    const r = rng(22);
    const profileOf = (order: CaptureOrder) =>
      gzipSync(toStream(sampleCapture(program, r, { samples: 50_000, change: order.version === "2" ? { target: 2 } : {}, name: order.version })));
    profiler = await startProfiler({
      dir, tenant: "acme", instanceId: "node-1", bootstrapToken: bootstrap, enrolUrl: a!.url, tunnelUrl: a!.tunnelUrl,
      onOrder: (order, client) => {
        client.send({ type: "answer", request_id: order.request_id, answer: "running" });
        client.send({
          type: "result",
          request_id: order.request_id,
          outcome: "pushed",
          instrumentation: { requested: ["cpu"], attached: ["cpu"], not_attached: [] },
          profile_gz_b64: Buffer.from(profileOf(order)).toString("base64"),
        });
      },
    });

    const queue = async (version: string) => {
      const res = await fetch(`${b!.url}/api/profiling/captures`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify({ workload: "checkout", version, duration_sec: 5, warmup_sec: 0 }),
      });
      expect(res.status).toBe(202);
      const { request_id: id } = (await res.json()) as { request_id: string };
      return until(`version ${version} recorded`, 20_000, async () => {
        const rec = await store.getCapture(id);
        return rec?.status === "done" && (await store.getDiff(id)) ? rec : null;
      });
    };

    const v1 = await queue("1");
    expect(v1.outcome).toBe("pushed");
    expect((await store.getDiff(v1.requestId))!.comparedWith).toBeNull(); // nothing earlier to compare with
    const v2 = await queue("2");
    expect(v2.outcome).toBe("pushed");
    expect(profiler.received.get(v2.requestId)).toBe(1);
    expect(await store.getProfile(v2.requestId)).not.toBeNull();

    const diff = (await store.getDiff(v2.requestId))!;
    expect(diff.comparedWith).toEqual({ requestId: v1.requestId, version: "1" });
    const result = JSON.parse(diff.json!) as DiffResult;
    expect(result.verdict).toBe("changed");
    expect(result.changes.filter((c) => c.flagged).map((c) => `${c.function} ${c.direction}`)).toContain("target up");

  }, 60_000);
});
