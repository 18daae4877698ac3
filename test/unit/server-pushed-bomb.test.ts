// The diff computed when a profile is pushed: a pushed gzip bomb is refused at the profile size
// decompression limit, not kept, and the record's diff note says why (it was inflated whole).
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/log.ts";
import { storeAndDiff } from "../../src/server/records/diff-on-arrival.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { gzipBomb } from "../helpers/gzip-bomb.ts";
import { MAX_PROFILE_BYTES, mib } from "../../src/protocol/profile-limits.ts";

const LIMIT = mib(MAX_PROFILE_BYTES);

const dir = mkdtempSync(join(tmpdir(), "runner-pushed-bomb-"));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("a pushed gzip bomb is not kept; its diff note names the limit", async () => {
  const store = new SqliteStore(join(dir, "runner.db"));
  const org = await store.createOrg("acme");
  const now = Date.now();
  const q = await store.queueCapture(org.id, "ci", { workload: "shop", version: "2", env: "", kind: "head", durationSec: 60, warmupSec: 5 }, { limit: 20, windowMs: 3_600_000, now });
  if (q.kind !== "queued") throw new Error(q.kind);
  await store.markCaptureRunning(q.requestId, now);
  const rec = await store.completeCapture(q.requestId, { outcome: "pushed", instrumentation: { probes_requested: 1, probes_attached: 1, missing: [] } }, now);
  await storeAndDiff({ store, logger: createLogger("test", "silent"), now: () => now }, rec, await gzipBomb(256), "node-a");
  expect(await store.getProfile(q.requestId)).toBeNull();
  const diff = await store.getDiff(q.requestId);
  expect(diff?.note).toContain(`the pushed profile was not kept: the pushed profile decompresses to more than ${LIMIT}, the limit for one profile`);
  await store.close();
}, 120_000);
