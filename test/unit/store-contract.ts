// The Store contract: every implementation (SQLite and PostgreSQL) runs this same suite.
// Usage: storeContract("sqlite", async () => ({ store, cleanup })).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { CaptureRequest } from "../../src/protocol/capture-request.ts";
import type { Store } from "../../src/server/store/store.ts";
import { StoreError, type QueuePolicy } from "../../src/server/store/types.ts";

export interface StoreHandle {
  store: Store;
  cleanup(): Promise<void>;
}

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const policy = (now: number, limit = 20): QueuePolicy => ({ limit, windowMs: HOUR, now });
const req = (over: Partial<CaptureRequest> = {}): CaptureRequest => ({
  workload: "checkout", version: "1.0.0", env: "", kind: "head", durationSec: 60, warmupSec: 5, ...over,
});

async function expectStoreError(p: Promise<unknown>, code: StoreError["code"]) {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(StoreError);
  expect((err as StoreError).code).toBe(code);
}

export function storeContract(name: string, open: () => Promise<StoreHandle>) {
  describe(`Store contract: ${name}`, () => {
    let h: StoreHandle;
    let store: Store;
    let orgId: number;
    beforeEach(async () => {
      h = await open();
      store = h.store;
      orgId = (await store.createOrg("acme", T0)).id;
    });
    afterEach(async () => {
      await h.cleanup();
    });

    describe("orgs", () => {
      test("a new org has the Profiler disabled and can be read back", async () => {
        const org = await store.getOrg("acme");
        expect(org).toEqual({ id: orgId, name: "acme", profilerEnabled: false, createdAt: T0 });
        expect(await store.getOrg("nope")).toBeNull();
      });
      test("a duplicate name is a conflict", async () => {
        await expectStoreError(store.createOrg("acme"), "conflict");
      });
      test("the Profiler opt-in toggles and an unknown org is not_found", async () => {
        expect((await store.setProfilerEnabled("acme", true)).profilerEnabled).toBe(true);
        expect((await store.getOrg("acme"))!.profilerEnabled).toBe(true);
        expect((await store.setProfilerEnabled("acme", false)).profilerEnabled).toBe(false);
        await expectStoreError(store.setProfilerEnabled("nope", true), "not_found");
      });
    });

    describe("capture tokens", () => {
      test("found by hash with its name and org, until revoked", async () => {
        await store.addCaptureToken("acme", "ci", "h1", T0);
        const p = await store.findCaptureToken("h1");
        expect(p?.tokenName).toBe("ci");
        expect(p?.tokenHash).toBe("h1");
        expect(p?.org.name).toBe("acme");
        expect(await store.findCaptureToken("h2")).toBeNull();
        await store.revokeCaptureToken("acme", "ci", T0 + 1);
        expect(await store.findCaptureToken("h1")).toBeNull();
      });
      test("one active token per name; the name is free again after revocation", async () => {
        await store.addCaptureToken("acme", "ci", "h1");
        await expectStoreError(store.addCaptureToken("acme", "ci", "h2"), "conflict");
        await store.revokeCaptureToken("acme", "ci");
        await store.addCaptureToken("acme", "ci", "h2");
        expect((await store.findCaptureToken("h2"))?.tokenName).toBe("ci");
      });
      test("the same name in two orgs is fine; unknown org or token is not_found", async () => {
        await store.createOrg("other");
        await store.addCaptureToken("acme", "ci", "h1");
        await store.addCaptureToken("other", "ci", "h2");
        expect((await store.findCaptureToken("h2"))?.org.name).toBe("other");
        await expectStoreError(store.addCaptureToken("nope", "ci", "h3"), "not_found");
        await expectStoreError(store.revokeCaptureToken("acme", "missing"), "not_found");
      });
      test("list shows active and revoked tokens, never hashes", async () => {
        await store.addCaptureToken("acme", "a", "h1", T0);
        await store.addCaptureToken("acme", "b", "h2", T0 + 1);
        await store.revokeCaptureToken("acme", "a", T0 + 2);
        const list = await store.listCaptureTokens("acme");
        expect(list).toEqual([
          { name: "a", createdAt: T0, revokedAt: T0 + 2 },
          { name: "b", createdAt: T0 + 1, revokedAt: null },
        ]);
      });
    });

    describe("bootstrap tokens", () => {
      test("found by hash, resolving to the org", async () => {
        await store.addBootstrapToken("acme", "b1");
        expect((await store.findBootstrapToken("b1"))?.name).toBe("acme");
        expect(await store.findBootstrapToken("b2")).toBeNull();
        await expectStoreError(store.addBootstrapToken("nope", "b3"), "not_found");
      });
    });

    describe("read tokens", () => {
      test("found by hash with its org and workload scope, until revoked; a capture token's hash is not a read token", async () => {
        await store.addReadToken("acme", "gate", "r1", null, T0);
        await store.addReadToken("acme", "shop-gate", "r2", ["shop", "cart"], T0 + 1);
        await store.addCaptureToken("acme", "ci", "c1", T0);
        expect(await store.findReadToken("r1")).toMatchObject({ tokenName: "gate", tokenHash: "r1", workloads: null, org: { name: "acme" } });
        expect((await store.findReadToken("r2"))?.workloads).toEqual(["shop", "cart"]);
        expect(await store.findReadToken("c1")).toBeNull();
        expect(await store.findCaptureToken("r1")).toBeNull();
        await expectStoreError(store.addReadToken("acme", "gate", "r3", null), "conflict");
        await store.revokeReadToken("acme", "gate", T0 + 2);
        expect(await store.findReadToken("r1")).toBeNull();
        await expectStoreError(store.revokeReadToken("acme", "gate"), "not_found");
        await expectStoreError(store.addReadToken("nope", "x", "r4", null), "not_found");
        expect(await store.listReadTokens("acme")).toEqual([
          { name: "gate", workloads: null, createdAt: T0, revokedAt: T0 + 2 },
          { name: "shop-gate", workloads: ["shop", "cart"], createdAt: T0 + 1, revokedAt: null },
        ]);
      });
    });

    describe("capture queue", () => {
      test("queues with the requester and reads back", async () => {
        const r = await store.queueCapture(orgId, "ci", req({ env: "prod", kind: "replicate" }), policy(T0));
        expect(r.kind).toBe("queued");
        if (r.kind !== "queued") return;
        const got = await store.getCapture(r.requestId);
        expect(got).toMatchObject({
          orgName: "acme", workload: "checkout", version: "1.0.0", env: "prod", kind: "replicate",
          durationSec: 60, warmupSec: 5, requester: "ci", status: "queued", outcome: null, reason: null,
          instrumentation: null, createdAt: T0,
        });
        expect(await store.getCapture("does-not-exist")).toBeNull();
      });

      test("an identical in-flight request is deduped; any differing field queues a new one", async () => {
        const a = await store.queueCapture(orgId, "ci", req(), policy(T0));
        const b = await store.queueCapture(orgId, "someone-else", req(), policy(T0 + 1));
        expect(b.kind).toBe("deduped");
        if (a.kind === "rate_limited" || b.kind === "rate_limited") throw new Error("unexpected");
        expect(b.requestId).toBe(a.requestId);
        const variants: Partial<CaptureRequest>[] = [
          { workload: "x" }, { version: "2" }, { env: "prod" }, { kind: "replicate" }, { durationSec: 61 }, { warmupSec: 0 },
        ];
        for (const v of variants) expect((await store.queueCapture(orgId, "ci", req(v), policy(T0 + 2))).kind).toBe("queued");
      });

      test("a running request still dedupes; a done one does not", async () => {
        const a = await store.queueCapture(orgId, "ci", req(), policy(T0));
        if (a.kind !== "queued") throw new Error("not queued");
        await store.markCaptureRunning(a.requestId, T0 + 1);
        expect((await store.queueCapture(orgId, "ci", req(), policy(T0 + 2))).kind).toBe("deduped");
        await store.completeCapture(a.requestId, { outcome: "pushed" }, T0 + 3);
        const c = await store.queueCapture(orgId, "ci", req(), policy(T0 + 4));
        expect(c.kind).toBe("queued");
      });

      test("exactly `limit` new requests per window; deduped ones do not count", async () => {
        for (let i = 0; i < 20; i++) {
          expect((await store.queueCapture(orgId, "ci", req({ version: `v${i}` }), policy(T0 + i * 1000))).kind).toBe("queued");
          // an identical repeat right after each one is deduped and not counted
          if (i < 19) expect((await store.queueCapture(orgId, "ci", req({ version: `v${i}` }), policy(T0 + i * 1000))).kind).toBe("deduped");
        }
        const now = T0 + 30_000;
        const limited = await store.queueCapture(orgId, "ci", req({ version: "v20" }), policy(now));
        expect(limited).toEqual({ kind: "rate_limited", retryAfterSeconds: Math.ceil((T0 + HOUR - now) / 1000) });
        // past the limit an identical in-flight request still gets its id back: it is not a new request
        expect((await store.queueCapture(orgId, "ci", req({ version: "v0" }), policy(now))).kind).toBe("deduped");
        // when the oldest ages out of the window, one slot frees
        expect((await store.queueCapture(orgId, "ci", req({ version: "v20" }), policy(T0 + HOUR))).kind).toBe("queued");
        expect((await store.queueCapture(orgId, "ci", req({ version: "v21" }), policy(T0 + HOUR))).kind).toBe("rate_limited");
      });

      test("the limit is per organization", async () => {
        const other = (await store.createOrg("other")).id;
        for (let i = 0; i < 3; i++) await store.queueCapture(orgId, "ci", req({ version: `v${i}` }), policy(T0, 3));
        expect((await store.queueCapture(orgId, "ci", req({ version: "v9" }), policy(T0, 3))).kind).toBe("rate_limited");
        expect((await store.queueCapture(other, "ci", req({ version: "v9" }), policy(T0, 3))).kind).toBe("queued");
      });

      test("100 concurrent identical requests queue exactly one", async () => {
        const results = await Promise.all(Array.from({ length: 100 }, () => store.queueCapture(orgId, "ci", req(), policy(T0))));
        expect(results.filter((r) => r.kind === "queued")).toHaveLength(1);
        expect(results.filter((r) => r.kind === "deduped")).toHaveLength(99);
        expect(await store.listCaptures("acme")).toHaveLength(1);
      });

      test("50 concurrent distinct requests against a limit of 20 queue exactly 20", async () => {
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.queueCapture(orgId, "ci", req({ version: `v${i}` }), policy(T0))),
        );
        expect(results.filter((r) => r.kind === "queued")).toHaveLength(20);
        expect(results.filter((r) => r.kind === "rate_limited")).toHaveLength(30);
      });

      test("transitions: queued -> running -> done with outcome, reason and instrumentation", async () => {
        const a = await store.queueCapture(orgId, "ci", req(), policy(T0));
        if (a.kind !== "queued") throw new Error("not queued");
        const id = a.requestId;
        expect((await store.markCaptureRunning(id, T0 + 1)).status).toBe("running");
        await expectStoreError(store.markCaptureRunning(id), "conflict");
        const instrumentation = { probes_requested: 3, probes_attached: 2, missing: [{ probe: "offcpu", reason: "tracefs not mounted" }] };
        const done = await store.completeCapture(id, { outcome: "failed", reason: "target exited", instrumentation }, T0 + 2);
        expect(done).toMatchObject({ status: "done", outcome: "failed", reason: "target exited", instrumentation, updatedAt: T0 + 2 });
        await expectStoreError(store.completeCapture(id, { outcome: "pushed" }), "conflict");
        await expectStoreError(store.markCaptureRunning("nope"), "not_found");
        await expectStoreError(store.completeCapture("nope", { outcome: "pushed" }), "not_found");
      });

      test("a queued request can complete directly (e.g. nothing_to_push)", async () => {
        const a = await store.queueCapture(orgId, "ci", req(), policy(T0));
        if (a.kind !== "queued") throw new Error("not queued");
        const done = await store.completeCapture(a.requestId, { outcome: "nothing_to_push", reason: "target not running" });
        expect(done).toMatchObject({ status: "done", outcome: "nothing_to_push", reason: "target not running", instrumentation: null });
      });

      test("list is per org, newest first", async () => {
        const other = (await store.createOrg("other")).id;
        await store.queueCapture(orgId, "ci", req({ version: "1" }), policy(T0));
        await store.queueCapture(orgId, "ci", req({ version: "2" }), policy(T0 + 1));
        await store.queueCapture(other, "ci", req({ version: "3" }), policy(T0 + 2));
        expect((await store.listCaptures("acme")).map((r) => r.version)).toEqual(["2", "1"]);
        expect((await store.listCaptures("other")).map((r) => r.version)).toEqual(["3"]);
        await expectStoreError(store.listCaptures("nope"), "not_found");
      });
    });

    describe("members and sessions (web app)", () => {
      test("a member is created once per org and email (any case); unknown org is not_found", async () => {
        const u = await store.createUser("acme", "ann@acme.test", "admin", "hash-a", T0);
        expect(u).toMatchObject({ orgId, orgName: "acme", email: "ann@acme.test", role: "admin", createdAt: T0 });
        await expectStoreError(store.createUser("acme", "ANN@acme.test", "member", "hash-b"), "conflict");
        await expectStoreError(store.createUser("nope", "ann@acme.test", "member", "hash-b"), "not_found");
        await store.createOrg("other");
        expect((await store.createUser("other", "ann@acme.test", "member", "hash-c")).orgName).toBe("other");
        expect(await store.findUserCredentials("acme", "Ann@Acme.test")).toMatchObject({ id: u.id, passwordHash: "hash-a" });
        expect(await store.findUserCredentials("other", "ann@acme.test")).toMatchObject({ role: "member", passwordHash: "hash-c" });
        expect(await store.findUserCredentials("acme", "bob@acme.test")).toBeNull();
        expect((await store.listUsers("acme")).map((x) => x.email)).toEqual(["ann@acme.test"]);
      });

      test("a session is found by its hash until it expires or is deleted; prune drops only expired ones", async () => {
        const u = await store.createUser("acme", "ann@acme.test", "owner", "hash-a", T0);
        await store.createSession(u.id, "s1", T0 + 1000, T0);
        await store.createSession(u.id, "s2", T0 + 5000, T0);
        expect(await store.findSession("s1", T0 + 999)).toEqual({ user: u, expiresAt: T0 + 1000 });
        expect(await store.findSession("s1", T0 + 1000)).toBeNull();
        expect(await store.findSession("nope", T0)).toBeNull();
        expect(await store.pruneSessions(T0 + 1000)).toBe(1);
        await store.deleteSession("s2");
        expect(await store.findSession("s2", T0)).toBeNull();
      });

      test("sign-in attempts: claimed up to the limit per account (any org name), then refused with when a slot frees; cleared; forgotten when old", async () => {
        const claim = (org: string, email: string, at: number, since = T0 - 1000) => store.claimSignInAttempt(org, email, at, since, 3);
        expect(await claim("acme", "ann@acme.test", T0 + 2)).toBeNull();
        expect(await claim("acme", "ann@acme.test", T0 + 1)).toBeNull();
        expect(await claim("acme", "ann@acme.test", T0 + 5)).toBeNull();
        // Full: nothing more is recorded, and the answer is the oldest of the last `limit`.
        expect(await claim("acme", "ann@acme.test", T0 + 6)).toBe(T0 + 1);
        expect(await claim("acme", "ann@acme.test", T0 + 7)).toBe(T0 + 1);
        // Other accounts, and the same email in an unknown org, have their own count.
        expect(await claim("acme", "bob@acme.test", T0 + 3)).toBeNull();
        expect(await claim("no-such-org", "ann@acme.test", T0 + 4)).toBeNull();
        // Once T0+1 is out of the window there is room for exactly one more.
        expect(await claim("acme", "ann@acme.test", T0 + 8, T0 + 1)).toBeNull();
        expect(await claim("acme", "ann@acme.test", T0 + 9, T0 + 1)).toBe(T0 + 2);
        await store.clearSignInFailures("acme", "ann@acme.test");
        for (let i = 0; i < 3; i++) expect(await claim("acme", "ann@acme.test", T0 + 10 + i, T0 + 1)).toBeNull();
        expect(await claim("acme", "ann@acme.test", T0 + 20, T0 + 1)).toBe(T0 + 10);
        // bob's one attempt (T0+3) is forgotten once the window starts after it.
        for (let i = 0; i < 3; i++) expect(await claim("acme", "bob@acme.test", T0 + 30 + i, T0 + 3)).toBeNull();
        expect(await claim("acme", "bob@acme.test", T0 + 40, T0 + 3)).toBe(T0 + 30);
      });

      test("sign-in attempts: 100 claims at once on one account record exactly the limit", async () => {
        const results = await Promise.all(Array.from({ length: 100 }, (_, i) => store.claimSignInAttempt("acme", "ann@acme.test", T0 + i, T0 - 1000, 10)));
        expect(results.filter((r) => r === null).length).toBe(10);
      });
    });

    describe("web app reads", () => {
      test("capture pages: newest first, filtered by workload and env (empty env included), keyset-paged, per org", async () => {
        const other = (await store.createOrg("other")).id;
        for (let i = 0; i < 5; i++) await store.queueCapture(orgId, "ci", req({ version: `v${i}`, env: i % 2 ? "prod" : "" }), policy(T0 + i));
        await store.queueCapture(orgId, "ci", req({ workload: "api", version: "x" }), policy(T0 + 10));
        await store.queueCapture(other, "ci", req({ version: "hidden" }), policy(T0 + 11));
        const all = await store.queryCaptures("acme", { limit: 100 });
        expect(all.map((r) => r.version)).toEqual(["x", "v4", "v3", "v2", "v1", "v0"]);
        expect((await store.queryCaptures("acme", { workload: "checkout", env: "", limit: 100 })).map((r) => r.version)).toEqual(["v4", "v2", "v0"]);
        expect((await store.queryCaptures("acme", { env: "prod", limit: 100 })).map((r) => r.version)).toEqual(["v3", "v1"]);
        const page1 = await store.queryCaptures("acme", { limit: 2 });
        const last = page1.at(-1)!;
        const page2 = await store.queryCaptures("acme", { limit: 2, before: { createdAt: last.createdAt, requestId: last.requestId } });
        expect([...page1, ...page2].map((r) => r.version)).toEqual(["x", "v4", "v3", "v2"]);
        expect(await store.captureFacets("acme")).toEqual({ workloads: ["api", "checkout"], envs: ["", "prod"] });
        await expectStoreError(store.queryCaptures("nope", { limit: 1 }), "not_found");
      });

      test("diff summaries: verdicts of many heads in one call, without their JSON and HTML", async () => {
        const ids: string[] = [];
        for (const v of ["1", "2"]) {
          const q = await store.queueCapture(orgId, "ci", req({ version: v }), policy(T0 + Number(v)));
          if (q.kind !== "queued") throw new Error("not queued");
          ids.push(q.requestId);
        }
        await store.saveDiff({ requestId: ids[0]!, comparedWith: null, note: "nothing to compare with yet", verdict: null, json: null, html: null, createdAt: T0 + 5 });
        await store.saveDiff({ requestId: ids[1]!, comparedWith: { requestId: ids[0]!, version: "1" }, note: "n", verdict: "changed", json: "{\"big\":1}", html: "<p>x</p>", createdAt: T0 + 6 });
        const got = await store.listDiffSummaries([ids[1]!, ids[0]!, "no-such-id"]);
        expect(got.sort((a, b) => a.createdAt - b.createdAt)).toEqual([
          { requestId: ids[0]!, comparedWith: null, note: "nothing to compare with yet", verdict: null, createdAt: T0 + 5 },
          { requestId: ids[1]!, comparedWith: { requestId: ids[0]!, version: "1" }, note: "n", verdict: "changed", createdAt: T0 + 6 },
        ]);
        expect(await store.listDiffSummaries([])).toEqual([]);
      });

      test("a requester's last request within a token's lifetime", async () => {
        await store.queueCapture(orgId, "ci", req({ version: "1" }), policy(T0 + 10));
        await store.queueCapture(orgId, "ci", req({ version: "2" }), policy(T0 + 20));
        await store.queueCapture(orgId, "other", req({ version: "3" }), policy(T0 + 30));
        expect(await store.lastRequestBy("acme", "ci", T0, null)).toBe(T0 + 20);
        expect(await store.lastRequestBy("acme", "ci", T0, T0 + 15)).toBe(T0 + 10);
        expect(await store.lastRequestBy("acme", "ci", T0 + 21, null)).toBeNull();
      });

      test("enrolled instances with last seen = latest of enrolment and pushed profile, per org", async () => {
        const other = (await store.createOrg("other")).id;
        await store.enrolInstance(orgId, "node-a", "profiler", "ka", T0);
        await store.enrolInstance(orgId, "node-b", "profiler", "kb", T0 + 100);
        await store.enrolInstance(other, "node-a", "profiler", "kc", T0 + 500);
        const q = await store.queueCapture(orgId, "ci", req(), policy(T0 + 1));
        if (q.kind !== "queued") throw new Error("not queued");
        await store.saveProfile(q.requestId, new Uint8Array([1, 2]), "node-a", T0 + 200);
        expect(await store.listInstances("acme")).toEqual([
          { instanceId: "node-a", artifactClass: "profiler", enrolledAt: T0, lastSeenAt: T0 + 200 },
          { instanceId: "node-b", artifactClass: "profiler", enrolledAt: T0 + 100, lastSeenAt: T0 + 100 },
        ]);
        expect((await store.listInstances("other")).map((i) => i.lastSeenAt)).toEqual([T0 + 500]);
      });
    });

    test("ping answers", async () => {
      await store.ping();
    });
  });
}
