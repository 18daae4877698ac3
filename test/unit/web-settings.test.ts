// Settings: the Profiler opt-in (owner/admin), enrolled Profilers with last seen, and capture
// tokens created (value shown once, working against the API), listed and revoked.
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { hashToken } from "../../src/protocol/token-format.ts";
import { startWeb, type Client, type Web } from "./web-harness.ts";

setDefaultTimeout(30_000);
let web: Web;
let owner: Client;

beforeEach(async () => {
  web = await startWeb();
  owner = await web.member("acme", "owner@acme.test", "owner");
});
afterEach(() => web.stop());

const api = (token: string) =>
  fetch(`${web.url}/api/profiling/captures`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ workload: "w", version: "1" }) });

describe("Profiler section", () => {
  test("enable and disable; the state is shown and enforced by the API", async () => {
    expect(await (await owner.get("/settings")).text()).toContain('<strong id="profiler-state">disabled</strong>');
    const token = await web.captureToken("acme", "ci");
    expect((await api(token)).status).toBe(403);
    const on = await owner.post("/settings/profiler", { enabled: "1" });
    expect(on.status).toBe(303);
    const page = await (await owner.get(on.headers.get("location")!)).text();
    expect(page).toContain("The Profiler is enabled.");
    expect(page).toContain('<strong id="profiler-state">enabled</strong>');
    expect(page).toContain(">Disable the Profiler</button>");
    expect((await api(token)).status).toBe(202);
    await owner.post("/settings/profiler", { enabled: "0" });
    expect((await web.store.getOrg("acme"))!.profilerEnabled).toBe(false);
  });

  test("lists enrolled Profilers with when each was last seen (enrolment or last pushed profile), offline without a tunnel", async () => {
    const org = (await web.store.getOrg("acme"))!;
    expect(await (await owner.get("/settings")).text()).toContain("No Profiler has enrolled yet.");
    await web.store.enrolInstance(org.id, "node-a", "profiler", "key-a", Date.UTC(2026, 0, 1));
    await web.store.enrolInstance(org.id, "node-b", "profiler", "key-b", Date.UTC(2026, 0, 2));
    const other = await web.store.createOrg("other");
    await web.store.enrolInstance(other.id, "node-hidden", "profiler", "key-c", Date.UTC(2026, 0, 3));
    const q = await web.store.queueCapture(org.id, "ci", { workload: "w", version: "1", env: "", kind: "head", durationSec: 60, warmupSec: 5 }, { limit: 9, windowMs: 1, now: Date.UTC(2026, 0, 5) });
    await web.store.saveProfile((q as { requestId: string }).requestId, new Uint8Array([1]), "node-a", Date.UTC(2026, 0, 5, 12));
    const html = await (await owner.get("/settings")).text();
    // This server runs no tunnel listener: no Profiler can be connected to it (test/e2e/settings-presence.test.ts has both states).
    const offline = '<td class="presence"><span class="state s-offline">offline</span></td>';
    expect(html).toContain(`<tr><td><code>node-a</code></td><td>profiler</td>${offline}<td>2026-01-01 00:00:00 UTC</td><td>2026-01-05 12:00:00 UTC</td></tr>`);
    expect(html).toContain(`<tr><td><code>node-b</code></td><td>profiler</td>${offline}<td>2026-01-02 00:00:00 UTC</td><td>2026-01-02 00:00:00 UTC</td></tr>`);
    expect(html.indexOf("node-a")).toBeLessThan(html.indexOf("node-b")); // most recently seen first
    expect(html).not.toContain("node-hidden");
  });
});

describe("capture tokens", () => {
  test("create shows the value once with a copy button; only its hash is stored; it queues captures", async () => {
    await web.store.setProfilerEnabled("acme", true);
    const res = await owner.post("/settings/tokens", { name: "deploy-pipeline" });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    const value = /id="new-token" readonly value="(rpcap_[A-Za-z0-9]+)"/.exec(html)![1]!;
    expect(html).toContain('data-copy="new-token">Copy</button>');
    expect(html).toContain("It is shown once");
    const stored = web.store.db.query("SELECT hash FROM capture_tokens WHERE name = 'deploy-pipeline'").get() as { hash: string };
    expect(stored.hash).toBe(hashToken(value));
    expect(JSON.stringify(web.store.db.query("SELECT * FROM capture_tokens").all())).not.toContain(value);
    const again = await (await owner.get("/settings")).text();
    expect(again).not.toContain(value);
    const queued = await api(value);
    expect(queued.status).toBe(202);
    const list = await (await owner.get("/settings")).text();
    const row = /<tr><td>deploy-pipeline<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td><td>active<\/td>/.exec(list)!;
    expect(row[2]).not.toBe("never"); // last used
    expect(list).toContain('aria-label="Revoke token deploy-pipeline"');
  });

  test("an unused token reads as never used", async () => {
    await owner.post("/settings/tokens", { name: "idle" });
    expect(await (await owner.get("/settings")).text()).toMatch(/<tr><td>idle<\/td><td>[^<]+<\/td><td>never<\/td><td>active<\/td>/);
  });

  test("names are validated; a duplicate active name is a 409", async () => {
    for (const bad of ["", "has space", "a@b", "x".repeat(65)]) {
      const res = await owner.post("/settings/tokens", { name: bad });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("A token name is 1 to 64 letters");
    }
    expect((await owner.post("/settings/tokens", { name: "ci" })).status).toBe(201);
    const dup = await owner.post("/settings/tokens", { name: "ci" });
    expect(dup.status).toBe(409);
    expect(await dup.text()).toContain("An active token named &quot;ci&quot; already exists");
  });

  test("revoke: the token stops working at once and is listed as revoked", async () => {
    await web.store.setProfilerEnabled("acme", true);
    const html = await (await owner.post("/settings/tokens", { name: "ci" })).text();
    const value = /value="(rpcap_[A-Za-z0-9]+)"/.exec(html)![1]!;
    const res = await owner.post("/settings/tokens/revoke", { name: "ci" });
    expect(res.status).toBe(303);
    expect((await api(value)).status).toBe(401);
    const list = await (await owner.get(res.headers.get("location")!)).text();
    expect(list).toContain('Token &quot;ci&quot; revoked.');
    expect(list).toMatch(/<tr><td>ci<\/td>.*<td>revoked \d{4}-/);
    expect(list).not.toContain('aria-label="Revoke token ci"');
    const missing = await owner.post("/settings/tokens/revoke", { name: "ci" });
    expect(missing.status).toBe(404);
  });

  test("the token-name pattern compiles as Chromium compiles it (v flag); revoke and disable ask first", async () => {
    const owner = await web.member("acme", "o@acme.test", "owner");
    await web.store.setProfilerEnabled("acme", true); // the disable form shows while it is enabled
    await owner.post("/settings/tokens", { name: "ci-1" });
    const html = await (await owner.get("/settings")).text();
    const pattern = /id="token-name"[^>]*pattern="([^"]+)"/.exec(html)![1]!.replace(/&#39;/g, "'");
    const re = new RegExp(`^(?:${pattern})$`, "v");
    expect(re.test("ci-1.a_b")).toBe(true);
    expect(re.test("has space")).toBe(false);
    expect(html).toMatch(/<form method="post" action="\/settings\/tokens\/revoke" class="inline" data-confirm="Revoke capture token ci-1\?/);
    expect(html).toMatch(/<form method="post" action="\/settings\/profiler" data-confirm="Disable the Profiler for acme\?/);
  });
});
