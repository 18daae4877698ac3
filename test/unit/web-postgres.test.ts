// The web app on the PostgreSQL store: the same pages and rules as on SQLite (sign-in and sessions,
// roles, org isolation, the capture form under the API's limit, the capture screen, Settings).
// Needs RUNNER_TEST_DATABASE_URL (a server the test may create databases on); skips without it
// except on CI (RUNNER_REQUIRE_LIVE=1).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { PostgresStore } from "../../src/server/store/postgres/postgres-store.ts";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";
import { startWebOn, type Client, type Web } from "./web-harness.ts";
import { describeUnless } from "../helpers/skip.ts";

setDefaultTimeout(60_000);
const base = postgresUrl();
let web: Web<PostgresStore>;
let owner: Client;
let member: Client;
let rival: Client;

beforeAll(async () => {
  if (!base) return;
  const db = await createTestDatabase(base, "web");
  const store = new PostgresStore(db.url);
  web = await startWebOn(store, { rateLimit: { limit: 3, windowMs: 3600_000 } }, async () => {
    await store.close();
    await db.drop();
  });
  owner = await web.member("acme", "owner@acme.test", "owner");
  member = await web.member("acme", "member@acme.test", "member");
  rival = await web.member("rival", "owner@rival.test", "owner");
}, 120_000);
afterAll(async () => {
  await web?.stop();
});

describeUnless(base ? null : "no PostgreSQL to test against (test/helpers/postgres.ts)")("web app on PostgreSQL", () => {
  test("sign-in: session by hash, a wrong password is 401, sign-out ends the session", async () => {
    expect((await owner.get("/profiling")).status).toBe(200);
    const { Client: C } = await import("./web-harness.ts");
    const wrong = await new C(web.url).signIn("acme", "owner@acme.test", "not the password");
    expect(wrong.status).toBe(401);
    const extra = await web.member("acme", "leaver@acme.test", "member");
    expect((await extra.post("/logout", {})).status).toBe(303);
    expect((await extra.get("/profiling")).status).toBe(303);
  });

  test("Settings: owner enables the Profiler and makes a token that queues; a member gets 403", async () => {
    expect((await member.post("/settings/profiler", { enabled: "1" })).status).toBe(403);
    expect((await owner.post("/settings/profiler", { enabled: "1" })).status).toBe(303);
    const html = await (await owner.post("/settings/tokens", { name: "ci" })).text();
    const token = /value="(rpcap_[A-Za-z0-9]+)"/.exec(html)![1]!;
    const res = await fetch(`${web.url}/api/profiling/captures`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ workload: "api", version: "1" }) });
    expect(res.status).toBe(202);
    expect(await (await owner.get("/settings")).text()).toMatch(/<tr><td>ci<\/td><td>[^<]+<\/td><td>\d{4}-[^<]+<\/td><td>active<\/td>/);
    expect((await member.post("/settings/tokens/revoke", { name: "ci" })).status).toBe(403);
  });

  test("the form queues as the member under the shared hourly limit; records are listed and filtered", async () => {
    const a = await member.post("/profiling/captures", { process: "shop", version: "2", environment: "prod" });
    expect(a.status).toBe(303);
    const id = new URL(a.headers.get("location")!, web.url).searchParams.get("queued")!;
    expect((await web.store.getCapture(id))!.requester).toBe("member@acme.test");
    expect((await member.post("/profiling/captures", { process: "shop", version: "3", environment: "" })).status).toBe(303);
    expect((await member.post("/profiling/captures", { process: "shop", version: "4", environment: "" })).status).toBe(429);
    const html = await (await member.get("/profiling?workload=shop&env=prod")).text();
    expect(html).toContain(id);
    expect(html).not.toContain(">api</a>");
  });

  test("the capture screen with a diff, and another org's record is a 404", async () => {
    const p = makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 });
    const r = rng(5);
    const full = { probes_requested: 1, probes_attached: 1, missing: [] };
    const [b0, ...bs] = version(p, r, 3, { samples: 100_000 });
    const [a0, ...as] = version(p, r, 3, { samples: 100_000, change: { target: 1.5 } });
    await web.pushCapture("acme", { workload: "web", version: "1" }, b0!, full);
    for (const c of bs) await web.pushCapture("acme", { workload: "web", version: "1", kind: "replicate" }, c, full);
    const head = await web.pushCapture("acme", { workload: "web", version: "2" }, a0!, full);
    for (const c of as) await web.pushCapture("acme", { workload: "web", version: "2", kind: "replicate" }, c, full);
    const html = await (await owner.get(`/profiling/captures/${head}`)).text();
    expect(html).toContain('id="instrumentation">fully instrumented');
    expect(html).toContain('<span class="verdict v-changed d-up" id="verdict" data-verdict="changed">changed ↑ regression</span>');
    // The list's verdict column reads the same diff through the PostgreSQL store.
    const list = await (await owner.get("/profiling?verdict=up")).text();
    expect(new RegExp(`<a href="/profiling/captures/${head}">[^]*?data-verdict="up"`).test(list)).toBe(true);
    expect(html).toContain('id="flame-cpu"');
    expect((await owner.get(`/profiling/captures/${head}/download/pprof`)).status).toBe(200);
    expect((await rival.get(`/profiling/captures/${head}`)).status).toBe(404);
    expect(await (await rival.get("/profiling")).text()).not.toContain(head);
  });
});
