// Who may do what in the app: a member cannot reach Settings actions, another org's records are
// invisible, and a capture token opens no page and no app endpoint.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { makeProgram, rng, sampleCapture } from "../fixtures/profiles/synthetic.ts";
import { startWeb, type Client, type Web } from "./web-harness.ts";

setDefaultTimeout(30_000);
let web: Web;
let owner: Client;
let admin: Client;
let member: Client;
let rival: Client;
let acmeId: string;
let rivalId: string;
let token: string;

const FULL = { probes_requested: 1, probes_attached: 1, missing: [] };

beforeAll(async () => {
  web = await startWeb();
  owner = await web.member("acme", "owner@acme.test", "owner");
  admin = await web.member("acme", "admin@acme.test", "admin");
  member = await web.member("acme", "member@acme.test", "member");
  rival = await web.member("rival", "owner@rival.test", "owner");
  token = await web.captureToken("acme", "ci");
  await web.store.setProfilerEnabled("acme", true);
  const p = makeProgram({ seed: 3, stacks: 40, leaves: 10, cv: 0.01 });
  acmeId = await web.pushCapture("acme", { workload: "acme-shop", version: "1" }, sampleCapture(p, rng(1), { samples: 5000 }), FULL);
  rivalId = await web.pushCapture("rival", { workload: "rival-secret", version: "9" }, sampleCapture(p, rng(2), { samples: 5000 }), FULL);
});
afterAll(() => web.stop());

describe("roles", () => {
  test("a member sees Settings but no action forms, and every Settings action answers 403 without effect", async () => {
    const page = await (await member.get("/settings")).text();
    expect(page).toContain("Only an owner or admin can enable or disable the Profiler.");
    expect(page).not.toContain('action="/settings/profiler"');
    expect(page).not.toContain('action="/settings/tokens"');
    expect(page).not.toContain('action="/settings/tokens/revoke"');
    const before = await web.store.listCaptureTokens("acme");
    for (const [path, fields] of [
      ["/settings/profiler", { enabled: "0" }],
      ["/settings/tokens", { name: "member-made" }],
      ["/settings/tokens/revoke", { name: "ci" }],
    ] as const) {
      const res = await member.post(path, fields);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain("only an owner or admin");
    }
    expect((await web.store.getOrg("acme"))!.profilerEnabled).toBe(true);
    expect(await web.store.listCaptureTokens("acme")).toEqual(before);
  });

  test("an admin and an owner may act", async () => {
    expect((await admin.post("/settings/profiler", { enabled: "1" })).status).toBe(303);
    const page = await (await owner.get("/settings")).text();
    expect(page).toContain('action="/settings/tokens"');
  });

  test("a member may use the capture form (any member asks)", async () => {
    const res = await member.post("/profiling/captures", { process: "acme-shop", version: "2", environment: "" });
    expect(res.status).toBe(303);
    const id = new URL(res.headers.get("location")!, web.url).searchParams.get("queued")!;
    expect((await web.store.getCapture(id))!.requester).toBe("member@acme.test");
  });
});

describe("organizations", () => {
  test("another org's records are not listed, not filterable, and their screens and downloads are 404", async () => {
    const list = await (await owner.get("/profiling")).text();
    expect(list).toContain("acme-shop");
    expect(list).not.toContain("rival-secret");
    expect(await (await owner.get("/profiling?workload=rival-secret")).text()).not.toContain("rival-secret</a>");
    expect(await (await owner.get("/profiling/rows?workload=rival-secret")).text()).toContain("No capture records match.");
    for (const path of [`/profiling/captures/${rivalId}`, `/profiling/captures/${rivalId}/download/pprof`, `/profiling/captures/${rivalId}/download/folded?axis=cpu`]) {
      const res = await owner.get(path);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain("rival-secret");
    }
    expect((await rival.get(`/profiling/captures/${rivalId}`)).status).toBe(200);
    expect((await rival.get(`/profiling/captures/${acmeId}`)).status).toBe(404);
  });

  test("an unknown id reads exactly like another org's id", async () => {
    const a = await owner.get(`/profiling/captures/${rivalId}`);
    const b = await owner.get("/profiling/captures/00000000-0000-7000-8000-000000000000");
    expect([a.status, await a.text()]).toEqual([b.status, await b.text()]);
  });

  test("Settings shows only the member's own org tokens", async () => {
    await web.captureToken("rival", "rival-pipeline");
    const page = await (await owner.get("/settings")).text();
    expect(page).not.toContain("rival-pipeline");
  });
});

describe("capture tokens", () => {
  const pages = () => ["/", "/profiling", "/profiling/rows", "/settings", `/profiling/captures/${acmeId}`, `/profiling/captures/${acmeId}/download/pprof`];

  test("a capture token in the Authorization header, in ?token= or as the cookie opens no page", async () => {
    for (const path of pages()) {
      const sep = path.includes("?") ? "&" : "?";
      for (const res of [
        await fetch(web.url + path, { redirect: "manual", headers: { authorization: `Bearer ${token}` } }),
        await fetch(`${web.url}${path}${sep}token=${token}`, { redirect: "manual" }),
        await fetch(web.url + path, { redirect: "manual", headers: { cookie: `runner_session=${token}` } }),
      ]) {
        expect([303, 401]).toContain(res.status);
        const body = await res.text();
        expect(body).not.toContain("acme-shop");
        if (res.status === 303) expect(res.headers.get("location")).toStartWith(path === "/" ? "/profiling" : "/login");
      }
    }
  });

  test("a capture token cannot post any app form", async () => {
    for (const path of ["/profiling/captures", "/settings/profiler", "/settings/tokens", "/settings/tokens/revoke"]) {
      const res = await fetch(web.url + path, {
        method: "POST",
        redirect: "manual",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/x-www-form-urlencoded" },
        body: "process=x&version=1&name=x&enabled=0",
      });
      expect(res.status).toBe(401);
    }
    expect((await web.store.getOrg("acme"))!.profilerEnabled).toBe(true);
  });

  test("a capture token reads nothing from the API either: only POST /api/profiling/captures accepts it", async () => {
    // The endpoint itself answers GET with 405 (POST only); a record's path reads with a read token
    // only, so a capture token there is refused like any token of the wrong kind (401).
    for (const [path, status] of [["/api/profiling/captures", 405], [`/api/profiling/captures/${acmeId}`, 401]] as const) {
      const res = await fetch(web.url + path, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(status);
      expect(await res.text()).not.toContain("acme-shop");
    }
  });
});
