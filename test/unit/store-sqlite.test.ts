// The SQLite store: the shared contract suite, plus what only a file-backed store can show —
// persistence across reopen, migrations, and an exact limit across processes sharing the file.
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { MIGRATIONS } from "../../src/server/store/sqlite/migrations.ts";
import { storeContract } from "./store-contract.ts";

const dirs: string[] = [];
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), "runner-store-"));
  dirs.push(dir);
  return join(dir, "runner.db");
}
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

storeContract("sqlite", async () => {
  const store = new SqliteStore(tempDb());
  return { store, cleanup: () => store.close() };
});

describe("SqliteStore on a file", () => {
  test("WAL mode, schema at the latest migration, reopening does not re-run migrations", async () => {
    const path = tempDb();
    const s1 = new SqliteStore(path);
    await s1.createOrg("acme");
    await s1.close();
    const s2 = new SqliteStore(path);
    expect((await s2.getOrg("acme"))?.name).toBe("acme");
    await s2.close();
    const db = new Database(path);
    expect((db.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
    expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(MIGRATIONS.at(-1)!.version);
    db.close();
  });

  test("the queries of pages that scale with records use an index, not a scan of the org's rows", async () => {
    const path = tempDb();
    await new SqliteStore(path).close();
    const db = new Database(path);
    const plan = (sql: string) => (db.query(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join("; ");
    // Settings: each token's last request.
    expect(plan("SELECT max(created_at) FROM capture_requests WHERE org_id = 1 AND requester = 'ci' AND created_at >= 0 AND created_at <= 9")).toContain("USING COVERING INDEX capture_requests_requester");
    // The sign-in throttle's count.
    expect(plan("SELECT at FROM sign_in_failures WHERE org = 'a' AND email = 'b' AND at > 0 ORDER BY at")).toContain("USING COVERING INDEX sign_in_failures_key");
    db.close();
  });

  test("the hourly limit is exact across 4 processes racing on the same file", async () => {
    const path = tempDb();
    const s = new SqliteStore(path);
    const orgId = (await s.createOrg("acme")).id;
    await s.close();
    const storeModule = resolve(import.meta.dir, "../../src/server/store/sqlite/sqlite-store.ts");
    const script = `
      const { SqliteStore } = await import(${JSON.stringify(storeModule)});
      const s = new SqliteStore(process.env.DB);
      const out = [];
      for (let i = 0; i < 15; i++) {
        const r = await s.queueCapture(${orgId}, "ci", { workload: "w", version: process.env.P + "-" + i, env: "", kind: "head", durationSec: 60, warmupSec: 5 },
          { limit: 20, windowMs: 3600000, now: Date.now() });
        out.push(r.kind);
      }
      console.log(JSON.stringify(out));`;
    const procs = [0, 1, 2, 3].map((p) =>
      Bun.spawn([process.execPath, "-e", script], { env: { ...process.env, DB: path, P: String(p) }, stdout: "pipe", stderr: "inherit" }),
    );
    const outputs = await Promise.all(procs.map(async (p) => JSON.parse(await new Response(p.stdout).text()) as string[]));
    const kinds = outputs.flat();
    expect(kinds).toHaveLength(60);
    expect(kinds.filter((k) => k === "queued")).toHaveLength(20);
    expect(kinds.filter((k) => k === "rate_limited")).toHaveLength(40);
  });
});
