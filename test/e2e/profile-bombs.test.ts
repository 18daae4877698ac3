// Size bombs against the compiled `runner server`: a stored gzip bomb opened on the capture screen
// is refused at the decompression limit while /healthz keeps answering (it was blocked for
// 12.5 s on every view). The tunnel's frame limits: test/e2e/tunnel-before-hello.test.ts (before
// welcome) and test/e2e/enrol-and-tunnel.test.ts (after).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { MAX_PROFILE_BYTES, mib } from "../../src/protocol/profile-limits.ts";
import { gzipBomb } from "../helpers/gzip-bomb.ts";
import { startServer, type Replica } from "../helpers/replicas.ts";
import { mustAdmin } from "../helpers/runner-admin.ts";

const LIMIT = mib(MAX_PROFILE_BYTES);

setDefaultTimeout(180_000);
const PASSWORD = "correct horse battery staple 42";

describe("size bombs against the server", () => {
  const dir = mkdtempSync(join(tmpdir(), "runner-bombs-"));
  let server: Replica;
  let requestId = "";
  beforeAll(async () => {
    mustAdmin(dir, ["org", "create", "acme"]);
    mustAdmin(dir, ["user", "create", "acme", "a@acme.test", "--role", "member", "--password-stdin"], PASSWORD);
    // A pushed capture whose stored profile is 1 GiB of zeros in about a megabyte.
    const store = new SqliteStore(join(dir, "runner.db"));
    const org = (await store.getOrg("acme"))!;
    const now = Date.now();
    const q = await store.queueCapture(org.id, "ci", { workload: "shop", version: "1", env: "", kind: "head", durationSec: 60, warmupSec: 5 }, { limit: 20, windowMs: 3_600_000, now });
    if (q.kind !== "queued") throw new Error(q.kind);
    requestId = q.requestId;
    await store.markCaptureRunning(requestId, now);
    await store.completeCapture(requestId, { outcome: "pushed", instrumentation: { probes_requested: 1, probes_attached: 1, missing: [] } }, now);
    await store.saveProfile(requestId, await gzipBomb(1024), "node-a", now);
    await store.close();
    server = await startServer(["--data", dir]);
  });
  afterAll(async () => {
    server?.proc.kill();
    await server?.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test("the capture screen of a stored bomb errors clearly while /healthz stays responsive", async () => {
    const login = await fetch(`${server.url}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ org: "acme", email: "a@acme.test", password: PASSWORD, next: "/profiling" }),
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    let viewing = true;
    let slowest = 0;
    let answered = 0;
    const poll = (async () => {
      while (viewing) {
        const t0 = performance.now();
        const r = await fetch(`${server.url}/healthz`);
        await r.arrayBuffer();
        expect(r.status).toBe(200);
        slowest = Math.max(slowest, performance.now() - t0);
        answered++;
        await Bun.sleep(20);
      }
    })();
    const views = [];
    for (let i = 0; i < 3; i++) {
      const page = await fetch(`${server.url}/profiling/captures/${requestId}`, { headers: { cookie } });
      views.push({ status: page.status, body: await page.text() });
    }
    viewing = false;
    await poll;
    if (views.some((v) => v.status !== 200)) console.log(server.log.slice(-5).join("\n"));
    for (const v of views) {
      expect(v.status).toBe(200);
      expect(v.body).toContain("a stored profile could not be read");
      expect(v.body).toContain(`decompresses to more than ${LIMIT}, the limit for one profile`);
    }
    expect(answered).toBeGreaterThan(3);
    // Inflating the whole gigabyte on the event loop blocked /healthz for seconds per view.
    expect(slowest).toBeLessThan(2000);
  });
});
