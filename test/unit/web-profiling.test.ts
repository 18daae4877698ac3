// The Profiling page and the in-app capture form: records newest first with requester and outcome,
// filters, paging, live rows, and the form under the API's own rules and rate limit.
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startWeb, type Client, type Web } from "./web-harness.ts";

setDefaultTimeout(30_000);
let web: Web;
let owner: Client;

beforeEach(async () => {
  web = await startWeb({ rateLimit: { limit: 3, windowMs: 3600_000 } });
  owner = await web.member("acme", "owner@acme.test", "owner");
  await web.store.setProfilerEnabled("acme", true);
});
afterEach(() => web.stop());

const queued = (res: Response) => new URL(res.headers.get("location")!, "http://x").searchParams.get("queued");
const api = (token: string, body: unknown) =>
  fetch(`${web.url}/api/profiling/captures`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });

describe("capture form", () => {
  test("has only process, version and environment", async () => {
    const html = await (await owner.get("/profiling")).text();
    const form = /<form method="post" action="\/profiling\/captures"[\s\S]*?<\/form>/.exec(html)![0];
    const names = [...form.matchAll(/name="([^"]+)"/g)].map((m) => m[1]).sort();
    expect(names).toEqual(["_csrf", "environment", "process", "version"]);
    for (const label of ["Process", "Version", "Environment"]) expect(form).toContain(`>${label}`);
    expect(form).not.toMatch(/duration|warmup|replicate|window/i);
  });

  test("queues a head capture with API defaults, the member as requester; the record is listed", async () => {
    const res = await owner.post("/profiling/captures", { process: "checkout", version: "1.2.3", environment: "prod" });
    expect(res.status).toBe(303);
    const rec = (await web.store.getCapture(queued(res)!))!;
    expect(rec).toMatchObject({ workload: "checkout", version: "1.2.3", env: "prod", kind: "head", durationSec: 60, warmupSec: 5, requester: "owner@acme.test", status: "queued" });
    const page = await (await owner.get(res.headers.get("location")!)).text();
    expect(page).toContain("Capture queued");
    expect(page).toMatch(/<span class="tag">member<\/span> owner@acme.test/);
    expect(page).toContain('data-live="1"');
  });

  test("an identical in-flight request is deduped, as in the API", async () => {
    const a = await owner.post("/profiling/captures", { process: "checkout", version: "1", environment: "" });
    const b = await owner.post("/profiling/captures", { process: "checkout", version: "1", environment: "" });
    expect(queued(b)).toBe(queued(a));
    expect(b.headers.get("location")).toContain("deduped=1");
  });

  test("validation errors name the form's field and keep what was typed", async () => {
    const res = await owner.post("/profiling/captures", { process: "", version: "7", environment: "staging" });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('role="alert"');
    expect(html).toMatch(/process must be a non-empty string/);
    expect(html).toContain('value="staging"');
    const long = await owner.post("/profiling/captures", { process: "x", version: "7", environment: "e".repeat(300) });
    expect(long.status).toBe(400);
    expect(await long.text()).toMatch(/environment must be a string of at most 256/);
  });

  test("403 while the Profiler is not enabled, like the API", async () => {
    await web.store.setProfilerEnabled("acme", false);
    const res = await owner.post("/profiling/captures", { process: "checkout", version: "1", environment: "" });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("the Profiler is not enabled");
  });

  test("shares the org's hourly limit with the API (429 with the retry time)", async () => {
    const token = await web.captureToken("acme", "ci");
    expect((await api(token, { workload: "w", version: "1" })).status).toBe(202);
    expect((await owner.post("/profiling/captures", { process: "w", version: "2", environment: "" })).status).toBe(303);
    expect((await api(token, { workload: "w", version: "3" })).status).toBe(202);
    const res = await owner.post("/profiling/captures", { process: "w", version: "4", environment: "" });
    expect(res.status).toBe(429);
    expect(await res.text()).toMatch(/reached 3 capture requests per hour; retry in \d+ s/);
    expect((await api(token, { workload: "w", version: "5" })).status).toBe(429);
  });
});

describe("records", () => {
  async function seed() {
    const token = await web.captureToken("acme", "ci-pipeline");
    const org = (await web.store.getOrg("acme"))!;
    const ids: string[] = [];
    let t = Date.now() - 10_000;
    for (const [workload, env] of [["api", "prod"], ["api", ""], ["worker", "prod"]] as const) {
      const q = await web.store.queueCapture(org.id, "ci-pipeline", { workload, version: "1", env, kind: "head", durationSec: 60, warmupSec: 5 }, { limit: 100, windowMs: 1, now: t++ });
      ids.push((q as { requestId: string }).requestId);
    }
    await web.store.markCaptureRunning(ids[0]!);
    await web.store.completeCapture(ids[0]!, { outcome: "failed", reason: "target not running on any node" });
    await web.store.markCaptureRunning(ids[1]!);
    await web.store.completeCapture(ids[1]!, { outcome: "nothing_to_push" });
    return { token, ids };
  }

  test("newest first, with requester kind, state/outcome and the failure reason", async () => {
    const { ids } = await seed();
    const html = await (await owner.get("/profiling")).text();
    const order = ids.map((id) => html.indexOf(id)).filter((i) => i >= 0);
    expect(order.length).toBe(3);
    expect(order).toEqual([...order].sort((a, b) => b - a)); // last queued first
    expect(html).toMatch(/<span class="tag">token<\/span> ci-pipeline/);
    expect(html).toContain('<span class="state s-failed">failed</span>');
    expect(html).toContain("target not running on any node");
    expect(html).toContain('<span class="state s-nothing_to_push">nothing to push</span>');
    expect(html).toContain('<span class="state s-queued">queued</span>');
  });

  test("filters by workload and by env (including the empty env)", async () => {
    const { ids } = await seed();
    const only = async (q: string) => {
      const html = await (await owner.get(`/profiling?${q}`)).text();
      return ids.filter((id) => html.includes(id));
    };
    expect(await only("workload=worker")).toEqual([ids[2]!]);
    expect(await only("env=prod")).toEqual([ids[0]!, ids[2]!]);
    expect(await only("env=(none)")).toEqual([ids[1]!]);
    expect(await only("workload=api&env=prod")).toEqual([ids[0]!]);
    expect(await only("workload=nope")).toEqual([]);
  });

  test("live rows: the fragment says whether anything is still in flight", async () => {
    const { ids } = await seed();
    const live = await owner.get("/profiling/rows");
    expect(live.headers.get("x-live")).toBe("1");
    // The fragment is HTML with the records' fields: it carries the pages' strict CSP too.
    expect(live.headers.get("content-security-policy")).toStartWith("default-src 'none'; script-src 'self'");
    expect(await live.text()).toContain(ids[2]!);
    await web.store.markCaptureRunning(ids[2]!);
    await web.store.completeCapture(ids[2]!, { outcome: "pushed" });
    const done = await owner.get("/profiling/rows");
    expect(done.headers.get("x-live")).toBe("0");
    expect(await done.text()).toContain('<span class="state s-pushed">pushed</span>');
  });

  test("pages of 100 by keyset: every record appears exactly once", async () => {
    const org = (await web.store.getOrg("acme"))!;
    const now = Date.now();
    for (let i = 0; i < 450; i++) {
      await web.store.queueCapture(org.id, "ci", { workload: "w", version: `v${i}`, env: "", kind: "head", durationSec: 60, warmupSec: 5 }, { limit: 1e6, windowMs: 1, now: now - 1000 + (i % 7) });
    }
    const seen = new Set<string>();
    let path: string | null = "/profiling";
    let pages = 0;
    while (path) {
      const html: string = await (await owner.get(path)).text();
      const ids = [...html.matchAll(/href="\/profiling\/captures\/([^"]+)"/g)].map((m) => m[1]!);
      for (const id of ids) {
        expect(seen.has(id)).toBe(false);
        seen.add(id);
      }
      pages++;
      const m = /href="(\/profiling\?[^"]*before=[^"]+)"/.exec(html);
      path = m ? m[1]!.replace(/&amp;/g, "&") : null;
    }
    expect(seen.size).toBe(450);
    expect(pages).toBe(5);
  });
});
