// The baseline rule (src/server/store/baseline-rule.ts) over a table of captures, and both
// stores' findBaseline queries answering every row of it the same way (PostgreSQL when
// RUNNER_TEST_DATABASE_URL is set, as in CI).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baselineHead, baselineReplicates, type BaselineQuery } from "../../src/server/store/baseline-rule.ts";
import type { Store } from "../../src/server/store/store.ts";
import type { CaptureRecord } from "../../src/server/store/types.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { PostgresStore } from "../../src/server/store/postgres/postgres-store.ts";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";

type Row = [org: string, workload: string, env: string, version: string, kind: "head" | "replicate", outcome: "pushed" | "failed" | "nothing_to_push" | null, at: number];
// prettier-ignore
const TABLE: Row[] = [
  ["acme", "api", "", "1.0", "head", "pushed", 100],
  ["acme", "api", "", "1.0", "replicate", "pushed", 110],
  ["acme", "api", "", "1.0", "replicate", "failed", 115],
  ["acme", "api", "", "1.0", "replicate", "pushed", 120],
  ["acme", "api", "", "1.1", "head", "failed", 200],          // not pushed: never a baseline
  ["acme", "api", "", "1.1", "head", "pushed", 210],
  ["acme", "api", "prod", "1.1", "head", "pushed", 220],      // another env
  ["acme", "web", "", "1.1", "head", "pushed", 230],          // another workload
  ["other", "api", "", "1.15", "head", "pushed", 240],        // another org
  ["acme", "api", "", "1.1", "replicate", "pushed", 250],     // a replicate is not a head
  ["acme", "api", "", "1.2", "head", "pushed", 300],
  ["acme", "api", "", "1.0", "head", "pushed", 310],          // an older version pushed again later
  ["acme", "api", "", "1.3", "head", "nothing_to_push", 400],
  ["acme", "api", "", "1.3", "head", null, 410],              // still queued
];
const QUERIES: Array<BaselineQuery & { expect: string | null }> = [
  { orgName: "acme", workload: "api", env: "", version: "1.1", before: 211, expect: "1.0@100" },
  { orgName: "acme", workload: "api", env: "", version: "1.2", before: 300, expect: "1.1@210" },
  { orgName: "acme", workload: "api", env: "", version: "1.1", before: 301, expect: "1.2@300" }, // a newer version captured before counts too,
  { orgName: "acme", workload: "api", env: "", version: "1.2", before: 1000, expect: "1.0@310" },
  { orgName: "acme", workload: "api", env: "", version: "1.3", before: 400, expect: "1.0@310" },
  { orgName: "acme", workload: "api", env: "", version: "1.0", before: 1000, expect: "1.2@300" },
  { orgName: "acme", workload: "api", env: "", version: "1.0", before: 100, expect: null },
  { orgName: "acme", workload: "api", env: "", version: "1.1", before: 100, expect: null },
  { orgName: "acme", workload: "api", env: "prod", version: "1.2", before: 1000, expect: "1.1@220" },
  { orgName: "acme", workload: "web", env: "", version: "1.1", before: 1000, expect: null },
  { orgName: "other", workload: "api", env: "", version: "2.0", before: 1000, expect: "1.15@240" },
  { orgName: "nobody", workload: "api", env: "", version: "2.0", before: 1000, expect: null },
];
const tag = (r: CaptureRecord | null | undefined) => (r ? `${r.version}@${r.createdAt}` : null);

async function fill(store: Store): Promise<CaptureRecord[]> {
  const orgs = new Map<string, number>();
  for (const name of new Set(TABLE.map((r) => r[0]))) orgs.set(name, (await store.createOrg(name)).id);
  const records: CaptureRecord[] = [];
  for (const [org, workload, env, version, kind, outcome, at] of TABLE) {
    const q = await store.queueCapture(orgs.get(org)!, "ci", { workload, version, env, kind, durationSec: 5, warmupSec: 0 }, { limit: 1e9, windowMs: 1, now: at });
    const id = (q as { requestId: string }).requestId;
    if (outcome) await store.completeCapture(id, { outcome, reason: outcome === "pushed" ? null : "x" }, at);
    records.push((await store.getCapture(id))!);
  }
  return records;
}

describe("the baseline rule in TypeScript", () => {
  test("answers the table as stated", () => {
    const records = TABLE.map(([orgName, workload, env, version, kind, outcome, at], i) => ({ requestId: String(i), orgName, workload, env, version, kind, outcome, createdAt: at, updatedAt: at }) as CaptureRecord);
    for (const q of QUERIES) expect({ q, got: tag(baselineHead(records, q)) }).toEqual({ q, got: q.expect });
    const head = baselineHead(records, QUERIES[0]!)!;
    expect(baselineReplicates(records, head).map(tag)).toEqual(["1.0@110", "1.0@120"]);
  });
});

async function agrees(store: Store) {
  const records = await fill(store);
  for (const q of QUERIES) {
    const rule = baselineHead(records, q);
    const found = await store.findBaseline(q.orgName, q.workload, q.env, q.version, q.before);
    expect({ q, store: tag(found?.head) }).toEqual({ q, store: q.expect });
    expect({ q, store: tag(found?.head) }).toEqual({ q, store: tag(rule) });
    if (rule) expect((found?.replicates ?? []).map((r) => r.requestId)).toEqual(baselineReplicates(records, rule).map((r) => r.requestId));
  }
}

const dir = mkdtempSync(join(tmpdir(), "runner-baseline-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("SQLite's findBaseline answers the table like the rule", async () => {
  const store = new SqliteStore(join(dir, "runner.db"));
  try {
    await agrees(store);
  } finally {
    await store.close();
  }
});

const base = postgresUrl();
test.skipIf(!base)("PostgreSQL's findBaseline answers the table like the rule", async () => {
  const db = await createTestDatabase(base!, "baseline");
  const store = new PostgresStore(db.url, { max: 4 });
  try {
    await store.ready;
    await agrees(store);
  } finally {
    await store.close();
    await db.drop();
  }
}, 60_000);
