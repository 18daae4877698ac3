// Settings → Read Tokens: an owner creates one (value shown once, only its hash stored, scoped to
// workloads when asked) that reads a capture's status through the API; a member cannot; revoke.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { hashToken } from "../../src/protocol/token-format.ts";
import { startWeb, type Client, type Web } from "./web-harness.ts";

let web: Web;
let owner: Client;
let id: string;

beforeAll(async () => {
  web = await startWeb();
  owner = await web.member("acme", "owner@acme.test", "owner");
  await web.store.setProfilerEnabled("acme", true);
  const capture = await web.captureToken("acme", "ci");
  const q = await fetch(`${web.url}/api/profiling/captures`, { method: "POST", headers: { authorization: `Bearer ${capture}` }, body: JSON.stringify({ workload: "shop", version: "1" }) });
  id = ((await q.json()) as { request_id: string }).request_id;
});
afterAll(() => web.stop());

const read = (token: string) => fetch(`${web.url}/api/profiling/captures/${id}`, { headers: { authorization: `Bearer ${token}` } });

test("create: shown once, hashed at rest, scoped; it reads the capture's status; revoke ends it", async () => {
  const res = await owner.post("/settings/read-tokens", { name: "deploy-gate", workloads: " shop , cart" });
  expect(res.status).toBe(201);
  const html = await res.text();
  const value = /id="new-read-token" readonly value="(rpread_[A-Za-z0-9]+)"/.exec(html)![1]!;
  expect(html).toContain("It is shown once");
  expect(html).toMatch(/<tr><td>deploy-gate<\/td><td>shop, cart<\/td>/);
  const stored = web.store.db.query("SELECT hash FROM read_tokens WHERE name = 'deploy-gate'").get() as { hash: string };
  expect(stored.hash).toBe(hashToken(value));
  expect(JSON.stringify(web.store.db.query("SELECT * FROM read_tokens").all())).not.toContain(value);
  expect(await (await owner.get("/settings")).text()).not.toContain(value);
  const ok = await read(value);
  expect(ok.status).toBe(200);
  expect(await ok.json()).toMatchObject({ request_id: id, status: "queued" });

  const other = await owner.post("/settings/read-tokens", { name: "cart-gate", workloads: "cart" });
  const cartOnly = /id="new-read-token" readonly value="(rpread_[A-Za-z0-9]+)"/.exec(await other.text())![1]!;
  expect((await read(cartOnly)).status).toBe(404);

  expect((await owner.post("/settings/read-tokens", { name: "deploy-gate" })).status).toBe(409);
  expect((await owner.post("/settings/read-tokens", { name: "no spaces" })).status).toBe(400);
  const revoked = await owner.post("/settings/read-tokens/revoke", { name: "deploy-gate" });
  expect(revoked.status).toBe(303);
  expect((await read(value)).status).toBe(401);
});

test("a member sees the section but cannot create or revoke", async () => {
  const member = await web.member("acme", "member@acme.test", "member");
  const page = await (await member.get("/settings")).text();
  expect(page).toContain("Only an owner or admin can create or revoke read tokens.");
  expect((await member.post("/settings/read-tokens", { name: "sneaky" })).status).toBe(403);
  expect((await member.post("/settings/read-tokens/revoke", { name: "cart-gate" })).status).toBe(403);
});
