// The queue rules both stores call (src/server/store/queue-rules.ts); the stores themselves are
// held to them by the contract suite (store-contract.ts) on SQLite and PostgreSQL.
import { describe, expect, test } from "bun:test";
import { dedupeKey, rateLimited } from "../../src/server/store/queue-rules.ts";

const req = { workload: "api", version: "v2", env: "prod", kind: "head" as const, durationSec: 60, warmupSec: 5 };

describe("dedupeKey", () => {
  test("equal for requests that measure the same thing, different when any measured field differs", () => {
    expect(dedupeKey({ ...req })).toBe(dedupeKey(req));
    for (const change of [{ workload: "web" }, { version: "v3" }, { env: "" }, { kind: "replicate" as const }, { durationSec: 61 }, { warmupSec: 0 }]) {
      expect(dedupeKey({ ...req, ...change })).not.toBe(dedupeKey(req));
    }
  });
  test("no field can spill into its neighbour", () => {
    expect(dedupeKey({ ...req, workload: "a,b", version: "c" })).not.toBe(dedupeKey({ ...req, workload: "a", version: "b,c" }));
  });
});

describe("rateLimited", () => {
  const policy = { limit: 10, windowMs: 3_600_000, now: 10_000_000 };
  test("whole seconds until the freeing request ages out of the window, rounded up", () => {
    expect(rateLimited(policy.now - 3_600_000 + 1_500, policy)).toEqual({ kind: "rate_limited", retryAfterSeconds: 2 });
    expect(rateLimited(policy.now - 1_000, policy)).toEqual({ kind: "rate_limited", retryAfterSeconds: 3599 });
  });
  test("never less than one second", () => {
    expect(rateLimited(policy.now - 3_600_000, policy)).toEqual({ kind: "rate_limited", retryAfterSeconds: 1 });
  });
});
