// The dispatcher contract: both dispatchers (in-process flights on SQLite, dispatcher.ts; flights
// in the store shared by replicas on PostgreSQL, cluster-dispatcher.ts) run these same scenarios,
// through createDispatcher as the server builds them, with Profilers as in-process tunnel sessions
// that record what they are sent and answer with the wire's messages.
// Usage: dispatcherContract("sqlite", async () => ({ store, cleanup })).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/log.ts";
import type { Instrumentation, ProfilerMessage, ServerMessage } from "../../src/protocol/tunnel.ts";
import { createDispatcher, type AnyDispatcher, type DispatchingStore } from "../../src/server/dispatch/create.ts";
import type { Store } from "../../src/server/store/store.ts";
import type { CaptureRecord } from "../../src/server/store/types.ts";
import type { TunnelSession } from "../../src/server/tunnel/listener.ts";
import { until } from "../helpers/until.ts";

export interface DispatchStoreHandle {
  store: Store & DispatchingStore;
  cleanup(): Promise<void>;
}

type Answer = Exclude<ProfilerMessage, { type: "hello" | "heartbeat" | "local_capture" }>;

/** A Profiler's tunnel as the dispatcher sees it: what it was sent, kept in order. */
class FakeTunnel implements TunnelSession {
  readonly sent: ServerMessage[] = [];
  constructor(
    readonly orgId: number,
    readonly orgName: string,
    readonly instanceId: string,
  ) {}
  send(m: ServerMessage): boolean {
    this.sent.push(m);
    return true;
  }
  close(): void {}
  orders(requestId: string): number {
    return this.sent.filter((m) => m.type === "capture" && m.order.request_id === requestId).length;
  }
}

const INSTRUMENTATION: Instrumentation = {
  requested: ["cpu", "offcpu"],
  attached: ["cpu"],
  not_attached: [{ probe: "offcpu", reason: "tracefs not mounted" }],
};
const HOUR = 3_600_000;

export function dispatcherContract(name: string, open: () => Promise<DispatchStoreHandle>) {
  describe(`Dispatcher contract: ${name}`, () => {
    let h: DispatchStoreHandle;
    let store: Store & DispatchingStore;
    let d: AnyDispatcher;
    let offset = 0; // the dispatcher's clock runs `offset` ms ahead of the wall clock
    let profiles: Array<{ requestId: string; bytes: number[]; from: string }>;
    let acme: number;
    let idle: number;

    const queue = async (orgId: number, version: string): Promise<string> => {
      const q = await store.queueCapture(orgId, "ci", { workload: "checkout", version, env: "", kind: "head", durationSec: 5, warmupSec: 0 }, { limit: 1000, windowMs: HOUR, now: Date.now() });
      if (q.kind !== "queued") throw new Error(`not queued: ${q.kind}`);
      return q.requestId;
    };
    const tunnel = async (orgId: number, orgName: string, instanceId: string): Promise<FakeTunnel> => {
      await store.enrolInstance(orgId, instanceId, "profiler", `key-of-${instanceId}`);
      return new FakeTunnel(orgId, orgName, instanceId);
    };
    const answer = (t: FakeTunnel, m: Answer) => d.message(t, m);
    const ordered = (t: FakeTunnel, id: string, times = 1) => until(`${times} order(s) of ${id} on ${t.instanceId}`, 10_000, async () => (t.orders(id) >= times ? true : undefined));
    const finished = (id: string) =>
      until(`the record of ${id} done`, 15_000, async () => {
        const r = await store.getCapture(id);
        return r?.status === "done" ? r : undefined;
      }) as Promise<CaptureRecord>;

    beforeEach(async () => {
      h = await open();
      store = h.store;
      offset = 0;
      profiles = [];
      acme = (await store.createOrg("acme")).id;
      idle = (await store.createOrg("idle")).id;
      d = createDispatcher({
        store,
        logger: createLogger("test", "silent"),
        now: () => Date.now() + offset,
        onProfile: async (record, gz, from) => void profiles.push({ requestId: record.requestId, bytes: [...gz], from }),
      });
      await d.start();
    });
    afterEach(async () => {
      d.stop();
      await h.cleanup();
    });

    test("a queued request goes to every live Profiler of its org once; another org's request waits for its own", async () => {
      const a = await tunnel(acme, "acme", "node-a");
      const b = await tunnel(acme, "acme", "node-b");
      await d.up(a, []);
      await d.up(b, []);
      const waiting = await queue(idle, "1.0.0");
      const id = await queue(acme, "1.0.0");
      d.kick();
      await ordered(a, id);
      await ordered(b, id);
      const order = a.sent.find((m) => m.type === "capture")!;
      expect(order.type === "capture" && order.order).toMatchObject({ request_id: id, workload: "checkout", version: "1.0.0", duration_sec: 5, warmup_sec: 0 });
      expect((await store.getCapture(id))!.status).toBe("running");
      await Bun.sleep(300);
      d.kick();
      await Bun.sleep(300);
      expect([a.orders(id), b.orders(id)]).toEqual([1, 1]);
      expect((await store.getCapture(waiting))!.status).toBe("queued");
      expect(d.liveProfilers("acme").sort()).toEqual(["node-a", "node-b"]);
      expect(d.liveProfilers("idle")).toEqual([]);
    });

    test("per-node answers merge into one outcome: pushed on one node, refused on the other; the profile reaches onProfile once", async () => {
      const a = await tunnel(acme, "acme", "node-a");
      const b = await tunnel(acme, "acme", "node-b");
      await d.up(a, []);
      await d.up(b, []);
      const id = await queue(acme, "2.0.0");
      d.kick();
      await ordered(a, id);
      await ordered(b, id);
      answer(b, { type: "answer", request_id: id, answer: "refused", reason: "checkout is not in this node's target list" });
      answer(a, { type: "answer", request_id: id, answer: "running" });
      await Bun.sleep(200);
      expect((await store.getCapture(id))!.status).toBe("running");
      answer(a, { type: "result", request_id: id, outcome: "pushed", instrumentation: INSTRUMENTATION, profile_gz_b64: Buffer.from([1, 2, 3]).toString("base64") });
      const r = await finished(id);
      expect(r.outcome).toBe("pushed");
      expect(r.instrumentation).toEqual({ probes_requested: 2, probes_attached: 1, missing: [{ probe: "offcpu", reason: "tracefs not mounted" }] });
      await until("the pushed profile handed on", 5_000, async () => (profiles.length ? true : undefined));
      expect(profiles).toEqual([{ requestId: id, bytes: [1, 2, 3], from: "node-a" }]);
    });

    test("every node refusing fails the record, saying no Profiler lists the workload", async () => {
      const a = await tunnel(acme, "acme", "node-a");
      const b = await tunnel(acme, "acme", "node-b");
      await d.up(a, []);
      await d.up(b, []);
      const id = await queue(acme, "3.0.0");
      d.kick();
      await ordered(a, id);
      await ordered(b, id);
      answer(a, { type: "answer", request_id: id, answer: "refused", reason: "not listed on node-a" });
      answer(b, { type: "answer", request_id: id, answer: "refused", reason: "not listed on node-b" });
      const r = await finished(id);
      expect(r.outcome).toBe("failed");
      expect(r.reason).toMatch(/^no Profiler lists this workload \(2 refused\): not listed on node-[ab]$/);
    });

    test("a pushed result without a profile fails the node's answer, saying so", async () => {
      const a = await tunnel(acme, "acme", "node-a");
      await d.up(a, []);
      const id = await queue(acme, "4.0.0");
      d.kick();
      await ordered(a, id);
      answer(a, { type: "result", request_id: id, outcome: "pushed", instrumentation: INSTRUMENTATION });
      const r = await finished(id);
      expect([r.outcome, r.reason]).toEqual(["failed", "Profiler pushed a result without a profile"]);
      expect(profiles).toEqual([]);
    });

    test("an order not yet acknowledged is sent again when its Profiler reconnects; a capture lost to a restart fails", async () => {
      const a = await tunnel(acme, "acme", "node-a");
      await d.up(a, []);
      const id = await queue(acme, "5.0.0");
      d.kick();
      await ordered(a, id);
      d.down(a, "tunnel closed");
      const again = new FakeTunnel(acme, "acme", "node-a");
      await d.up(again, []);
      await ordered(again, id); // redispatched on the new connection
      answer(again, { type: "answer", request_id: id, answer: "running" });
      await Bun.sleep(200);
      d.down(again, "tunnel closed");
      const restarted = new FakeTunnel(acme, "acme", "node-a");
      await d.up(restarted, []); // back, but no longer running it
      const r = await finished(id);
      expect([r.outcome, r.reason]).toEqual(["failed", "Profiler node-a restarted during the capture"]);
      expect(restarted.orders(id)).toBe(0);
    });

    test("a Profiler that never acknowledges is answered failed after the acknowledgement timeout", async () => {
      const a = await tunnel(acme, "acme", "node-a");
      await d.up(a, []);
      const id = await queue(acme, "6.0.0");
      d.kick();
      await ordered(a, id);
      await Bun.sleep(1_200);
      expect((await store.getCapture(id))!.status).toBe("running");
      offset = 31_000;
      const r = await finished(id);
      expect([r.outcome, r.reason]).toEqual(["failed", "Profiler node-a did not acknowledge the order within 30 s"]);
    });

    test("an answer from a Profiler the order was not sent to changes nothing", async () => {
      const a = await tunnel(acme, "acme", "node-a");
      const stranger = await tunnel(idle, "idle", "node-z");
      await d.up(a, []);
      await d.up(stranger, []);
      const id = await queue(acme, "7.0.0");
      d.kick();
      await ordered(a, id);
      answer(stranger, { type: "result", request_id: id, outcome: "failed", reason: "not mine" });
      await Bun.sleep(500);
      expect((await store.getCapture(id))!.status).toBe("running");
      answer(a, { type: "answer", request_id: id, answer: "nothing_to_push", reason: "checkout is not running here" });
      const r = await finished(id);
      expect([r.outcome, r.reason]).toEqual(["nothing_to_push", "checkout is not running here"]);
    });
  });
}
