// POST /api/profiling/captures over real HTTP against a real SQLite file: every status and rule.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/log.ts";
import { BOOTSTRAP_TOKEN_PREFIX, CAPTURE_TOKEN_PREFIX, generateToken, hashToken } from "../../src/protocol/token-format.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";

let dir: string;
let store: SqliteStore;
let server: RunningServer;
let token: string;
let url: string;

async function newToken(org: string, name: string): Promise<string> {
  const t = generateToken(CAPTURE_TOKEN_PREFIX);
  await store.addCaptureToken(org, name, hashToken(t));
  return t;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "runner-capture-api-"));
  store = new SqliteStore(join(dir, "runner.db"));
  server = await startServer({ hostname: "127.0.0.1", port: 0, store, logger: createLogger("test", "silent") });
  url = `${server.url}/api/profiling/captures`;
  await store.createOrg("acme");
  await store.setProfilerEnabled("acme", true);
  token = await newToken("acme", "ci-pipeline");
});
afterEach(async () => {
  await server.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const body = (over: Record<string, unknown> = {}) => JSON.stringify({ workload: "checkout", version: "1.2.3", ...over });
function post(init: { token?: string | null; body?: BodyInit; query?: string; headers?: Record<string, string> } = {}) {
  const t = init.token === undefined ? token : init.token;
  const headers: Record<string, string> = { "content-type": "application/json", ...init.headers };
  if (t !== null) headers.authorization = `Bearer ${t}`;
  return fetch(`${url}${init.query ?? ""}`, { method: "POST", headers, body: init.body ?? body() });
}

describe("service endpoints", () => {
  test("GET /healthz is 200 when ready", async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
  });
  test("GET /openapi.json documents the capture endpoint from the wire schemas", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    expect(doc.openapi).toStartWith("3.");
    const op = doc.paths["/api/profiling/captures"].post;
    expect(Object.keys(op.responses).sort()).toEqual(["202", "400", "401", "403", "413", "429"]);
    expect(doc.components.schemas.CaptureRequestBody.properties.duration_sec.maximum).toBe(300);
  });
  test("an unknown path is a 404, not a 5xx", async () => {
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
  });
});

describe("202", () => {
  test("Bearer header: queued, with the token name as requester and the defaults applied", async () => {
    const res = await post();
    expect(res.status).toBe(202);
    const json = (await res.json()) as any;
    expect(json).toEqual({ request_id: expect.any(String), status: "queued", deduped: false });
    const rec = await store.getCapture(json.request_id);
    expect(rec).toMatchObject({ requester: "ci-pipeline", workload: "checkout", version: "1.2.3", env: "", kind: "head", durationSec: 60, warmupSec: 5, status: "queued" });
  });
  test("token query parameter is an alternative to the header", async () => {
    const res = await post({ token: null, query: `?token=${token}` });
    expect(res.status).toBe(202);
  });
  test("aliases are accepted and stored under the canonical names", async () => {
    const res = await post({ body: body({ durationSec: 30, warmupSec: 0, kind: "replicate", env: "prod" }) });
    expect(res.status).toBe(202);
    const rec = await store.getCapture(((await res.json()) as any).request_id);
    expect(rec).toMatchObject({ durationSec: 30, warmupSec: 0, kind: "replicate", env: "prod" });
  });
  test("an identical in-flight request returns its id with deduped true and is not queued again", async () => {
    const a = (await (await post()).json()) as any;
    const res = await post({ body: body({ duration_sec: 60 }) }); // explicit default is the same request
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ request_id: a.request_id, status: "queued", deduped: true });
    expect(await store.listCaptures("acme")).toHaveLength(1);
  });
  test("100 concurrent identical requests: exactly one queued", async () => {
    const responses = await Promise.all(Array.from({ length: 100 }, () => post()));
    expect(responses.map((r) => r.status)).toEqual(Array(100).fill(202));
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as any[];
    expect(new Set(bodies.map((b) => b.request_id)).size).toBe(1);
    expect(bodies.filter((b) => !b.deduped)).toHaveLength(1);
    expect(await store.listCaptures("acme")).toHaveLength(1);
  });
});

describe("401", () => {
  test.each([
    ["no token", { token: null }],
    ["malformed token", { token: "rpcap_not-a-token" }],
    ["bad checksum", { token: "rpcap_" + "A".repeat(49) }],
    ["Basic scheme", { token: null, headers: { authorization: "Basic dXNlcjpwYXNz" } }],
    ["empty bearer", { token: null, headers: { authorization: "Bearer " } }],
  ] as const)("%s", async (_name, init) => {
    const res = await post(init as any);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toStartWith("Bearer");
    expect(((await res.json()) as any).error).toBeString();
  });
  test("a well-formed token that was never issued", async () => {
    expect((await post({ token: generateToken(CAPTURE_TOKEN_PREFIX) })).status).toBe(401);
  });
  test("a token of another kind (bootstrap, rpboot_) is refused even when it exists", async () => {
    const boot = generateToken(BOOTSTRAP_TOKEN_PREFIX);
    await store.addBootstrapToken("acme", hashToken(boot));
    expect((await post({ token: boot })).status).toBe(401);
    expect((await post({ token: null, query: `?token=${boot}` })).status).toBe(401);
  });
  test("a revoked token is refused on the very next request", async () => {
    expect((await post()).status).toBe(202);
    await store.revokeCaptureToken("acme", "ci-pipeline");
    expect((await post({ body: body({ version: "2" }) })).status).toBe(401);
  });
  test("401 comes before 403 and 400", async () => {
    await store.setProfilerEnabled("acme", false);
    expect((await post({ token: null, body: "{" })).status).toBe(401);
  });
  test("the error never echoes the token", async () => {
    const bad = "rpcap_" + "B".repeat(49);
    const text = await (await post({ token: bad })).text();
    expect(text).not.toContain(bad);
  });
});

describe("403", () => {
  test("the Profiler is not enabled for the organization, checked before the body", async () => {
    await store.setProfilerEnabled("acme", false);
    const res = await post({ body: "not json" });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error).toContain("acme");
    await store.setProfilerEnabled("acme", true);
    expect((await post()).status).toBe(202);
  });
});

describe("400 names the offending field", () => {
  test.each([
    ["missing workload", JSON.stringify({ version: "1" }), "workload"],
    ["wrong type", body({ version: 3 }), "version"],
    ["unknown field", body({ namespace: "x" }), "namespace"],
    ["empty-string key", body({ "": 1 }), ""],
    ["duration out of range", body({ duration_sec: 301 }), "duration_sec"],
    ["warmup alias out of range", body({ warmupSec: 61 }), "warmupSec"],
    ["kind not in enum", body({ kind: "both" }), "kind"],
    ["both spellings, different values", body({ duration_sec: 10, durationSec: 20 }), "duration_sec"],
  ])("%s", async (_n, text, field) => {
    const res = await post({ body: text });
    expect(res.status).toBe(400);
    const json = (await res.json()) as any;
    expect(json.field).toBe(field);
    expect(json.error).toContain(field);
  });
  test.each([
    ["malformed JSON", '{"workload":'],
    ["empty body", ""],
    ["array body", "[]"],
    ["invalid UTF-8", new Uint8Array([0x7b, 0xff, 0x7d]) as unknown as string],
  ])("%s", async (_n, text) => {
    const res = await post({ body: text });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatch(/body/);
  });
});

describe("413", () => {
  test("a body over 16 KiB, declared by Content-Length", async () => {
    const res = await post({ body: body({ env: "x".repeat(20_000) }) });
    expect(res.status).toBe(413);
  });
  test("a body over 16 KiB sent chunked (no Content-Length)", async () => {
    const big = new TextEncoder().encode(body({ env: "x".repeat(20_000) }));
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < big.length; i += 4096) c.enqueue(big.subarray(i, i + 4096));
        c.close();
      },
    });
    const res = await post({ body: stream });
    expect(res.status).toBe(413);
  });
});

describe("429", () => {
  test("past 20 newly queued requests per hour for the org; refusals and dedupes do not count", async () => {
    for (let i = 0; i < 5; i++) expect((await post({ body: "{" })).status).toBe(400);
    for (let i = 0; i < 20; i++) {
      expect((await post({ body: body({ version: `v${i}` }) })).status).toBe(202);
      if (i < 19) expect(((await (await post({ body: body({ version: `v${i}` }) })).json()) as any).deduped).toBe(true);
    }
    const res = await post({ body: body({ version: "v20" }) });
    expect(res.status).toBe(429);
    const json = (await res.json()) as any;
    expect(json.retry_after_seconds).toBeGreaterThan(3500);
    expect(json.retry_after_seconds).toBeLessThanOrEqual(3600);
    expect(res.headers.get("retry-after")).toBe(String(json.retry_after_seconds));
    // a repeat of an in-flight request is not a new request: its id comes back even past the limit
    const repeat = await post({ body: body({ version: "v0" }) });
    expect(repeat.status).toBe(202);
    expect(((await repeat.json()) as { deduped: boolean }).deduped).toBe(true);
  });
  test("the limit is per organization, not per token or address", async () => {
    const second = await newToken("acme", "human");
    for (let i = 0; i < 20; i++) expect((await post({ token: i % 2 ? second : token, body: body({ version: `v${i}` }) })).status).toBe(202);
    expect((await post({ token: second, body: body({ version: "x" }) })).status).toBe(429);
    await store.createOrg("globex");
    await store.setProfilerEnabled("globex", true);
    const other = await newToken("globex", "ci");
    expect((await post({ token: other, body: body({ version: "x" }) })).status).toBe(202);
  });
  test("30 concurrent distinct requests: exactly 20 accepted, 10 refused", async () => {
    const res = await Promise.all(Array.from({ length: 30 }, (_, i) => post({ body: body({ version: `c${i}` }) })));
    const statuses = res.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });
});

describe("never a 5xx for bad input", () => {
  test.each([
    ["GET on the capture path", () => fetch(url)],
    ["bad percent-encoding in the query", () => post({ token: null, query: "?token=%E0%A4%A" })],
    ["repeated token parameter", () => post({ token: null, query: `?token=a&token=b` })],
    ["form content type", () => post({ headers: { "content-type": "application/x-www-form-urlencoded" }, body: "workload=a&version=b" })],
    ["deeply nested JSON", () => post({ body: "[".repeat(10_000) + "]".repeat(10_000) })],
    ["huge number", () => post({ body: body({ duration_sec: 1e400 }) })],
  ])("%s", async (_n, send) => {
    const res = await send();
    expect(res.status).toBeLessThan(500);
  });
});

describe("a method the path does not serve", () => {
  test("405 with Allow, not 404, on the capture endpoint and on other known paths", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE", "PROPFIND"]) {
      const res = await fetch(`${server.url}/api/profiling/captures`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(((await res.json()) as { error: string }).error).toContain(method);
    }
    const health = await fetch(`${server.url}/healthz`, { method: "DELETE" });
    expect(health.status).toBe(405);
    expect(health.headers.get("allow")).toContain("GET");
    // An unknown path is still 404, whatever the method.
    expect((await fetch(`${server.url}/no/such/path`, { method: "PATCH" })).status).toBe(404);
  });
});
