// The in-process dispatcher (one server on SQLite) against a real store file: the dispatcher
// contract shared with the PostgreSQL one (dispatcher-contract.ts), and what only this one must
// show: a request of an org whose Profiler is connected is sent out however many requests of other
// orgs wait before it, and a dead database is not mistaken for a request taken meanwhile.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/log.ts";
import type { ServerMessage } from "../../src/protocol/tunnel.ts";
import { Dispatcher } from "../../src/server/dispatch/dispatcher.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import type { TunnelSession } from "../../src/server/tunnel/listener.ts";
import { until } from "../helpers/until.ts";
import { dispatcherContract } from "./dispatcher-contract.ts";

let dir: string;
let store: SqliteStore;
const T0 = Date.now() - 3_600_000;
const req = (version: string) => ({ workload: "checkout", version, env: "", kind: "head" as const, durationSec: 5, warmupSec: 0 });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "runner-dispatcher-"));
  store = new SqliteStore(join(dir, "runner.db"));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

dispatcherContract("sqlite", async () => {
  const own = mkdtempSync(join(tmpdir(), "runner-dispatcher-contract-"));
  const s = new SqliteStore(join(own, "runner.db"));
  return {
    store: s,
    cleanup: async () => {
      await s.close();
      rmSync(own, { recursive: true, force: true });
    },
  };
});

describe("Dispatcher (SQLite, one server)", () => {
  test("600 older requests of an org with no Profiler do not starve the org whose Profiler is live", async () => {
    const idle = (await store.createOrg("idle")).id;
    const acme = (await store.createOrg("acme")).id;
    for (let i = 0; i < 600; i++) await store.queueCapture(idle, "ci", req(`v${i}`), { limit: 1e9, windowMs: 1, now: T0 + i });
    const q = await store.queueCapture(acme, "ci", req("1.0.0"), { limit: 1e9, windowMs: 1, now: T0 + 1000 });
    const id = (q as { requestId: string }).requestId;
    expect((await store.listQueuedCaptures(["acme"], 10)).map((r) => r.requestId)).toEqual([id]);
    expect(await store.listQueuedCaptures([], 10)).toEqual([]);

    const sent: ServerMessage[] = [];
    const session: TunnelSession = { orgId: acme, orgName: "acme", instanceId: "node-1", send: (m) => (sent.push(m), true), close: () => {} };
    const d = new Dispatcher({ store, logger: createLogger("test", "silent") });
    d.up(session, []);
    d.kick();
    const order = await until("the order for acme's request", 5_000, async () => sent.find((m) => m.type === "capture"));
    expect(order.type === "capture" && order.order.request_id).toBe(id);
    expect((await store.getCapture(id))!.status).toBe("running");
    expect((await store.listQueuedCaptures(["idle"], 1000)).length).toBe(600);
    d.stop();
  });

  test("a request taken meanwhile is skipped; a database that stops answering fails the drain, logged, not skipped", async () => {
    const org = (await store.createOrg("dead-db")).id;
    const q = await store.queueCapture(org, "ci", req("2.0.0"), { limit: 1e9, windowMs: 1, now: T0 + 2000 });
    const id = (q as { requestId: string }).requestId;
    const errors: string[] = [];
    const logger = { info() {}, warn() {}, error: (_o: unknown, msg: string) => errors.push(msg) } as unknown as ReturnType<typeof createLogger>;
    const sent: ServerMessage[] = [];
    const session: TunnelSession = { orgId: org, orgName: "dead-db", instanceId: "node-1", send: (m) => (sent.push(m), true), close: () => {} };

    // Taken meanwhile: another process moved it to running first (a StoreError conflict).
    await store.markCaptureRunning(id);
    const listsStale = { ...store, listQueuedCaptures: async () => [(await store.getCapture(id))!], markCaptureRunning: (r: string) => store.markCaptureRunning(r) };
    const taken = new Dispatcher({ store: listsStale as unknown as SqliteStore, logger });
    taken.up(session, []);
    taken.kick();
    await Bun.sleep(200);
    expect(errors).toEqual([]);
    expect(sent).toEqual([]);
    taken.stop();

    // Dead: the store's connection is closed under it.
    const dead = new SqliteStore(join(dir, "runner.db"));
    await dead.close();
    const deadStore = { listQueuedCaptures: async () => [(await store.getCapture(id))!], markCaptureRunning: (r: string) => dead.markCaptureRunning(r), requeueRunningCaptures: async () => 0, completeCapture: dead.completeCapture.bind(dead) };
    const d = new Dispatcher({ store: deadStore, logger });
    d.up(session, []);
    d.kick();
    await until("the drain failure logged", 5_000, async () => errors.includes("dispatch: drain failed") || undefined);
    expect(sent).toEqual([]);
    d.stop();
  });
});
