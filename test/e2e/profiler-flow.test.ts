// The whole system on this machine: control plane over TLS, a Profiler as user nobody with a
// setcap'd ptop, real workloads. Every outcome of the reference document's capture record.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { findCollector, freePort } from "../../src/demo/machine.ts";
import { OneMachine } from "../../src/demo/one-machine.ts";
import { buildShop } from "../../src/demo/workload.ts";
import { DEFAULT_PROBES } from "../../src/config/probe-set.ts";
import { liveAvailable } from "../helpers/runner-bin.ts";
import { until } from "../helpers/until.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const collector = live ? findCollector() : null;
if (live && !collector && process.env.RUNNER_REQUIRE_LIVE === "1") throw new Error("RUNNER_REQUIRE_LIVE=1 but ptop is not built");

describeUnless(whyNot([!live, "needs root and BPF"], [!collector, "dist/ptop is not built"]))("capture flow end to end", () => {
  let m: OneMachine;
  let shop1 = "";
  let shop2 = "";
  let localPort = 0;
  let workload1: { kill(): void; exited: Promise<number> } | undefined;
  const window = { duration_sec: 5, warmup_sec: 0 };

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "runner-e2e-"));
    m = new OneMachine({ dir, collectorSource: collector!, targets: ["shop", "ghost"] });
    await m.setUp();
    shop1 = await buildShop(dir, 1);
    shop2 = await buildShop(dir, 2);
    localPort = await freePort();
  }, 120_000);

  afterAll(async () => {
    await m?.tearDown();
  });

  test("with no Profiler live a request waits, then drains when one connects", async () => {
    const q = await m.queue({ workload: "shop", version: "1.0.0", ...window });
    expect(q.status).toBe(202);
    const id = String(q.body.request_id);
    await Bun.sleep(2_000);
    expect((await m.capture(id)).status).toBe("queued");

    workload1 = m.startWorkload(shop1, ["2"]);
    // The operator's frequency reaches ptop (RUNNER_FREQUENCY_HZ; unset, ptop's default applies).
    await m.startProfiler("node-a", { RUNNER_LOCAL_LISTEN: `127.0.0.1:${localPort}`, RUNNER_FREQUENCY_HZ: "149" });
    await m.waitProfilerUp("node-a");
    const r = await m.waitDone(id, 40_000);
    expect(r.outcome).toBe("pushed");
    expect(r.requester).toBe("ci-pipeline");
    const inst = r.instrumentation as { probes_requested: number; probes_attached: number; missing: unknown[] };
    expect(inst.probes_requested).toBe(DEFAULT_PROBES.length);
    expect(inst.probes_attached).toBe(DEFAULT_PROBES.length);
    expect(inst.missing).toEqual([]);
    // The profile is kept once the diff's worker has read it, before the diff's note is stored.
    const diff = (await waitForDiff(m, id)) as { compared_with: string | null; note: string };
    expect(diff.compared_with).toBeNull();
    expect(await storedHeaderFrequency(m, id)).toBe(149);
    expect(diff.note).toContain("nothing to compare with");
  }, 90_000);

  test("a head of the next version is diffed against the prior version's head", async () => {
    const base = JSON.parse(await m.admin("captures", "list", m.org, "--json")) as Array<{ request_id: string; version: string }>;
    const v1 = base.find((c) => c.version === "1.0.0")!;
    // The deploy replaces v1: a v1 process left running would be measured under 2.0.0 too
    // (workloads are matched by name), diluting the regression by half.
    workload1?.kill();
    await workload1?.exited;
    m.startWorkload(shop2, ["2"]);
    const q = await m.queue({ workload: "shop", version: "2.0.0", ...window });
    const r = await m.waitDone(String(q.body.request_id), 40_000);
    expect(r.outcome).toBe("pushed");
    // The diff is computed right after the outcome is recorded.
    const diff = (await waitForDiff(m, String(q.body.request_id))) as { compared_with: string; compared_version: string; verdict: string };
    expect(diff.compared_with).toBe(v1.request_id);
    expect(diff.compared_version).toBe("1.0.0");
    expect(diff.verdict).not.toBe("unchanged"); // a regression that doubles a function's work is in there
    const full = JSON.parse(await m.admin("captures", "diff", String(q.body.request_id), "--json"));
    // v2 doubles apply_discounts' work: its own cpu is measured up, whatever the verdict with
    // one capture per side (prior dispersion) makes of it.
    const own = (full.diff.changes as Array<{ function: string; axis: string; kind: string; direction: string; relative_change: number }>).find(
      (c) => c.function === "apply_discounts" && c.axis === "cpu" && c.kind === "self",
    )!;
    expect(own.direction).toBe("up");
    expect(own.relative_change).toBeGreaterThan(0.1);
  }, 60_000);

  test("a workload that is not in the target list fails with that reason", async () => {
    const q = await m.queue({ workload: "not-listed", version: "1", ...window });
    const r = await m.waitDone(String(q.body.request_id), 20_000);
    expect(r.outcome).toBe("failed");
    expect(String(r.reason)).toContain("target list");
  }, 30_000);

  test("a listed workload that is not running here: nothing_to_push", async () => {
    const q = await m.queue({ workload: "ghost", version: "1", ...window });
    const r = await m.waitDone(String(q.body.request_id), 30_000);
    expect(r.outcome).toBe("nothing_to_push");
    expect(String(r.reason)).toContain("ghost");
  }, 40_000);

  test("a sidecar queues through the Profiler's local endpoint with the same rules", async () => {
    const post = (token: string) =>
      fetch(`http://127.0.0.1:${localPort}/api/profiling/captures`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ workload: "shop", version: "2.0.0", kind: "replicate", ...window }),
      });
    const bad = await post("rpcap_not-a-token");
    expect(bad.status).toBe(401);
    const ok = await post(m.captureToken);
    expect(ok.status).toBe(202);
    const body = (await ok.json()) as { request_id: string; status: string };
    expect(body.status).toBe("queued");
    const r = await m.waitDone(body.request_id, 40_000);
    expect(r.outcome).toBe("pushed");
  }, 60_000);

  test("the control plane restarts: the tunnel reconnects and captures resume", async () => {
    await m.stopServer();
    const down = await fetch(`http://127.0.0.1:${localPort}/api/profiling/captures`, {
      method: "POST",
      headers: { authorization: `Bearer ${m.captureToken}` },
      body: JSON.stringify({ workload: "shop", version: "9" }),
    });
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBeTruthy();
    const before = m.logs.filter((l) => l.includes("tunnel up")).length;
    await m.startServer();
    const deadline = Date.now() + 40_000;
    while (m.logs.filter((l) => l.includes("tunnel up")).length === before && Date.now() < deadline) await Bun.sleep(200);
    const q = await m.queue({ workload: "shop", version: "2.0.0", kind: "replicate", duration_sec: 5, warmup_sec: 1 });
    const r = await m.waitDone(String(q.body.request_id), 60_000);
    expect(r.outcome).toBe("pushed");
  }, 120_000);

  test("no credential appears in any log line of the server or the Profiler", () => {
    expect(m.logs.length).toBeGreaterThan(20);
    for (const line of m.logs) {
      expect(line).not.toContain(m.captureToken);
      expect(line).not.toContain(m.bootstrapTokenForTests);
    }
  });

  test("a Profiler lost mid-capture: the record fails with the reason, never stuck", async () => {
    const q = await m.queue({ workload: "shop", version: "3.0.0", duration_sec: 20, warmup_sec: 0 });
    const id = String(q.body.request_id);
    const deadline = Date.now() + 20_000;
    while ((await m.capture(id)).status !== "running" && Date.now() < deadline) await Bun.sleep(200);
    await Bun.sleep(1_000);
    await m.stopProfiler("node-a", "SIGKILL");
    const r = await m.waitDone(id, 60_000);
    expect(r.outcome).toBe("failed");
    expect(String(r.reason)).toContain("lost mid-capture");
  }, 90_000);
});

function waitForDiff(m: OneMachine, id: string): Promise<Record<string, unknown>> {
  return until(`a diff of capture ${id} within 15 s of its outcome`, 15_000, async () => (await m.capture(id)).diff as Record<string, unknown> | null, 250);
}

/** The frequency the pushed profile's header records, read from the server's store file. */
async function storedHeaderFrequency(m: OneMachine, id: string): Promise<number> {
  const store = new SqliteStore(join(m.dataDir, "runner.db"));
  try {
    const gz = await store.getProfile(id);
    if (!gz) throw new Error(`no profile stored for ${id}`);
    const header = JSON.parse(gunzipSync(gz).toString().split("\n", 1)[0]!) as { frequency_hz: number };
    return header.frequency_hz;
  } finally {
    await store.close();
  }
}
