// Retention on both stores (SQLite, and PostgreSQL when RUNNER_TEST_DATABASE_URL names a server):
// a deploy history pushed as a Profiler pushes it, a policy applied in a dry run and for real (the
// counts kept and pruned, storage before and after, idempotent), and the diff of a version whose
// baseline was pruned, which reads "baseline pruned" — on the record, the read API and the CLI.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/log.ts";
import { gateOf } from "../../src/protocol/capture-status.ts";
import { startServer } from "../../src/server/start-server.ts";
import { captureStatus } from "../../src/server/captures/capture-status.ts";
import { applyRetention } from "../../src/server/retention/apply.ts";
import { selectForPruning } from "../../src/server/retention/select.ts";
import { PostgresStore } from "../../src/server/store/postgres/postgres-store.ts";
import type { StoredProfile } from "../../src/server/store/retention-store.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import type { Store } from "../../src/server/store/store.ts";
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";
import { runAdmin } from "../helpers/runner-admin.ts";
import { describeUnless } from "../helpers/skip.ts";
import { pushCaptureAt } from "./web-harness.ts";

const DAY = 86_400_000;
const NOW = Date.now();
const full = { probes_requested: 1, probes_attached: 1, missing: [] };

test("selection: the latest K versions of each workload and env stay whatever their age; others by kind and age", () => {
  const s = (workload: string, version: string, kind: "head" | "replicate", ageDays: number, env = ""): StoredProfile => ({
    requestId: `${workload}/${env}/${version}/${kind}/${ageDays}`, workload, env, version, kind, createdAt: NOW - ageDays * DAY, bytes: 10,
  });
  const stored = [s("shop", "1", "head", 50), s("shop", "1", "replicate", 50), s("shop", "2", "head", 40), s("shop", "2", "replicate", 38),
    s("shop", "3", "head", 36), s("shop", "3", "replicate", 8), s("shop", "4", "head", 20), s("shop", "4", "replicate", 19),
    s("cart", "1", "head", 60), s("shop", "1", "head", 50, "staging")];
  const { keep, prune } = selectForPruning(stored, { headDays: 35, replicateDays: 10, keepVersions: 2 }, NOW);
  // shop 4 and 3 are the latest two (by their newest capture): kept, 3's 36-day head too. Of shop 2
  // and 1, heads past 35 days and replicates past 10 go. cart 1 and shop 1 in staging are the
  // latest of their own workload or env: kept.
  expect(prune.map((p) => p.requestId).sort()).toEqual(["shop//1/head/50", "shop//1/replicate/50", "shop//2/head/40", "shop//2/replicate/38"]);
  expect(keep.length).toBe(6);
  const young = selectForPruning([s("shop", "1", "head", 20), s("shop", "1", "replicate", 20), s("shop", "2", "head", 1)], { headDays: 35, replicateDays: 10, keepVersions: 1 }, NOW);
  expect(young.prune.map((p) => p.kind)).toEqual(["replicate"]); // a head younger than its limit stays, a replicate past its own goes
  expect(selectForPruning(stored, { headDays: null, replicateDays: null, keepVersions: 1 }, NOW).prune).toEqual([]);
});

function retentionSuite(name: string, open: () => Promise<{ store: Store; data?: string; close(): Promise<void> }>) {
  describe(`retention on ${name}`, () => {
    let h: Awaited<ReturnType<typeof open>>;
    const ids: Record<string, string[]> = {};
    beforeAll(async () => {
      h = await open();
      await h.store.createOrg("acme");
      const p = makeProgram({ seed: 21, stacks: 80, leaves: 30, cv: 0.01, targetShare: 0.03 });
      const r = rng(4);
      // four versions, 40, 30, 20 and 1 days old, head and two replicates each
      for (const [v, age] of [["1.0.0", 40], ["1.1.0", 30], ["1.2.0", 20], ["1.3.0", 1]] as const) {
        ids[v] = [];
        for (const [i, c] of version(p, r, 3, { samples: 20_000 }).entries()) {
          ids[v].push(await pushCaptureAt(h.store, "acme", { workload: "shop", version: v, kind: i ? "replicate" : "head" }, c, full, NOW - age * DAY + i * 60_000));
        }
      }
    }, 120_000);
    afterAll(() => h?.close());

    test("dry run, then pruned: the counts kept and pruned, storage before and after; a second pass prunes nothing", async () => {
      const { store } = h;
      await store.setRetentionPolicy("acme", { headDays: 25, replicateDays: 10, keepVersions: 2 });
      const before = await store.storageUsage("acme");
      expect(before).toMatchObject({ profiles: 12, pruned: 0 });
      const dry = await applyRetention(store, "acme", { now: NOW, dryRun: true });
      expect(dry).toMatchObject({ policy: true, kept: 6, pruned: 6, dryRun: true });
      expect((await store.storageUsage("acme")).profiles).toBe(12); // a dry run removes nothing
      const done = await applyRetention(store, "acme", { now: NOW, dryRun: false });
      expect(done).toMatchObject({ kept: 6, pruned: 6, bytes: dry.bytes });
      const after = await store.storageUsage("acme");
      expect(after).toMatchObject({ profiles: 6, pruned: 6, profileBytes: before.profileBytes - dry.bytes });
      expect(after.diffBytes).toBeLessThan(before.diffBytes); // the pruned heads' flame graphs went too
      expect(await store.prunedAt(ids["1.0.0"]![0]!)).toBe(NOW);
      expect(await store.prunedAt(ids["1.2.0"]![0]!)).toBeNull();
      // the records and their verdicts stay
      expect((await store.getCapture(ids["1.1.0"]![0]!))?.outcome).toBe("pushed");
      expect((await store.getDiff(ids["1.1.0"]![0]!))?.verdict).not.toBeNull();
      expect(await applyRetention(store, "acme", { now: NOW, dryRun: false })).toMatchObject({ kept: 6, pruned: 0 });
      expect(await store.listRetentionOrgs()).toEqual(["acme"]);
    });

    test("a version whose baseline was pruned: its diff reads 'baseline pruned', not an error", async () => {
      const { store } = h;
      // 1.2.0 was compared with 1.1.0, now pruned; a new replicate of 1.2.0 re-runs its diff
      const p = makeProgram({ seed: 21, stacks: 80, leaves: 30, cv: 0.01, targetShare: 0.03 });
      const [c] = version(p, rng(99), 1, { samples: 20_000 });
      const id = await pushCaptureAt(store, "acme", { workload: "shop", version: "1.2.0", kind: "replicate" }, c!, full, NOW);
      const d = await store.getDiff(ids["1.2.0"]![0]!);
      expect(d).toMatchObject({ verdict: null, comparedWith: null });
      expect(d!.note).toStartWith("baseline pruned: the profiles of version 1.1.0");
      const status = await captureStatus(store, (await store.getCapture(id))!);
      expect(status.diff).toMatchObject({ baseline: "pruned", verdict: null });
      expect(gateOf(status)).toBe("insufficient");
      if (h.data) {
        // the operator's view of a diff computed before its baseline was pruned (1.3.0 against 1.2.0 is intact; 1.1.0 against pruned 1.0.0)
        const cli = runAdmin(h.data, ["captures", "diff", ids["1.1.0"]![0]!]);
        expect(cli.code).toBe(0);
        expect(cli.out.split("\n")[0]).toMatch(/^baseline pruned on \d{4}-\d\d-\d\d by the retention policy/);
        const html = runAdmin(h.data, ["captures", "diff", ids["1.1.0"]![0]!, "--html", join(h.data, "x.html")]);
        expect(html.code).toBe(1);
        expect(html.err).toContain("was pruned on");
      }
    });
  });
}

retentionSuite("SQLite", async () => {
  const data = mkdtempSync(join(tmpdir(), "runner-retention-"));
  const store = new SqliteStore(join(data, "runner.db"));
  return { store, data, close: async () => (await store.close(), rmSync(data, { recursive: true, force: true })) };
});

const base = postgresUrl();
describeUnless(base ? null : "needs RUNNER_TEST_DATABASE_URL (a PostgreSQL server)")("PostgreSQL", () => {
  retentionSuite("PostgreSQL", async () => {
    const db = await createTestDatabase(base!, "retention");
    const store = new PostgresStore(db.url, { max: 4 });
    return { store, close: async () => (await store.close(), await db.drop()) };
  });
});

test("the server applies every organization's policy on its schedule", async () => {
  const data = mkdtempSync(join(tmpdir(), "runner-retention-schedule-"));
  const store = new SqliteStore(join(data, "runner.db"));
  await store.createOrg("acme");
  const p = makeProgram({ seed: 5, stacks: 40, leaves: 20, cv: 0.01 });
  for (const [v, age] of [["1", 40], ["2", 30]] as const) {
    await pushCaptureAt(store, "acme", { workload: "shop", version: v }, version(p, rng(age), 1, { samples: 5_000 })[0]!, full, NOW - age * DAY);
  }
  await store.setRetentionPolicy("acme", { headDays: 7, replicateDays: 7, keepVersions: 1 });
  const server = await startServer({ hostname: "127.0.0.1", port: 0, store, logger: createLogger("test", "silent"), retentionIntervalMs: 200 });
  try {
    const deadline = Date.now() + 10_000;
    while ((await store.storageUsage("acme")).pruned === 0 && Date.now() < deadline) await Bun.sleep(50);
    expect(await store.storageUsage("acme")).toMatchObject({ profiles: 1, pruned: 1 });
  } finally {
    await server.stop();
    await store.close();
    rmSync(data, { recursive: true, force: true });
  }
});
