// Sign-in, sessions and CSRF of the web app, over real HTTP against a real SQLite file.
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { safeNext } from "../../src/server/web/auth-routes.ts";
import { isSecure } from "../../src/server/web/context.ts";
import { csrfToken, sessionCookie, sessionHash, sessionSetCookie } from "../../src/server/users/session.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { Client, PASSWORD, startWeb, startWebOn, type Web } from "./web-harness.ts";

// Members sign in with real argon2id hashes; a loaded 2-core machine needs more than 5 s.
setDefaultTimeout(30_000);
let web: Web;
beforeEach(async () => {
  web = await startWeb();
});
afterEach(() => web.stop());

describe("sign-in", () => {
  test("a member signs in; the session cookie is HttpOnly, SameSite=Strict, and only its hash is stored", async () => {
    await web.store.createOrg("acme");
    await web.member("acme", "owner@acme.test", "owner");
    const c = new Client(web.url);
    const res = await c.signIn("acme", "Owner@Acme.test", PASSWORD);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/profiling");
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^runner_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    const value = cookie.split(";")[0]!.split("=")[1]!;
    const rows = web.store.db.query("SELECT hash FROM sessions").all() as Array<{ hash: string }>;
    expect(rows.length).toBe(2); // the harness's own sign-in and this one
    expect(rows.some((r) => r.hash === value)).toBe(false);
    const page = await c.get("/profiling");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("owner@acme.test · owner · acme");
  });

  test("a wrong password, an unknown email and an unknown org get the same 401 page", async () => {
    await web.member("acme", "a@acme.test", "member");
    const bodies: string[] = [];
    for (const [org, email, pw] of [["acme", "a@acme.test", "wrong password here"], ["acme", "nobody@acme.test", PASSWORD], ["nope", "a@acme.test", PASSWORD]]) {
      const res = await new Client(web.url).signIn(org!, email!, pw!);
      expect(res.status).toBe(401);
      expect(res.headers.get("set-cookie")).toBeNull();
      bodies.push((await res.text()).replace(/value="[^"]*"/g, ""));
    }
    expect(bodies[0]).toContain("Organization, email or password is wrong.");
    expect(new Set(bodies).size).toBe(1);
  });

  test("a page without a session redirects to sign-in and comes back; a fetch gets 401", async () => {
    const res = await new Client(web.url).get("/settings");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/login?next=%2Fsettings");
    expect((await new Client(web.url).get("/profiling/rows")).status).toBe(401);
  });

  test("ten failed sign-ins for one account lock it for a while (429 with Retry-After), not its neighbours", async () => {
    await web.member("acme", "a@acme.test", "member");
    await web.member("acme", "b@acme.test", "member");
    for (let i = 0; i < 10; i++) expect((await new Client(web.url).signIn("acme", "a@acme.test", `wrong password ${i}`)).status).toBe(401);
    const locked = await new Client(web.url).signIn("acme", "A@acme.test", PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(800);
    expect(locked.headers.get("set-cookie")).toBeNull();
    expect((await new Client(web.url).signIn("acme", "b@acme.test", PASSWORD)).status).toBe(303);
  });

  test("the count is shared by replicas on one store: 5 failures on each of two servers lock the account on both", async () => {
    await web.member("acme", "a@acme.test", "member");
    // A second server process's worth: its own store connection to the same database file.
    const second = await startWebOn(new SqliteStore(web.store.path), {}, async () => {});
    try {
      for (let i = 0; i < 5; i++) {
        expect((await new Client(web.url).signIn("acme", "a@acme.test", `wrong ${i}`)).status).toBe(401);
        expect((await new Client(second.url).signIn("acme", "a@acme.test", `wrong ${i}`)).status).toBe(401);
      }
      expect((await new Client(web.url).signIn("acme", "a@acme.test", PASSWORD)).status).toBe(429);
      expect((await new Client(second.url).signIn("acme", "a@acme.test", PASSWORD)).status).toBe(429);
    } finally {
      await second.stop();
      await second.store.close();
    }
  });

  test("a successful sign-in clears the account's failures", async () => {
    await web.member("acme", "a@acme.test", "member");
    for (let i = 0; i < 9; i++) expect((await new Client(web.url).signIn("acme", "a@acme.test", `wrong ${i}`)).status).toBe(401);
    expect((await new Client(web.url).signIn("acme", "a@acme.test", PASSWORD)).status).toBe(303);
    for (let i = 0; i < 9; i++) expect((await new Client(web.url).signIn("acme", "a@acme.test", `wrong again ${i}`)).status).toBe(401);
    expect((await new Client(web.url).signIn("acme", "a@acme.test", PASSWORD)).status).toBe(303);
  });

  test("sign-in from another origin is refused", async () => {
    await web.member("acme", "a@acme.test", "owner");
    const res = await new Client(web.url).post("/login", { org: "acme", email: "a@acme.test", password: PASSWORD }, { csrf: null, origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  test("sign-out deletes the session: the old cookie no longer opens a page", async () => {
    const c = await web.member("acme", "a@acme.test", "owner");
    const res = await c.post("/logout", {});
    expect(res.status).toBe(303);
    expect(res.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await c.get("/profiling")).status).toBe(303);
  });

  test("an expired session is refused", async () => {
    const c = await web.member("acme", "a@acme.test", "owner");
    web.store.db.query("UPDATE sessions SET expires_at = 1").run();
    expect((await c.get("/profiling")).status).toBe(303);
  });

  test("over TLS the cookie is also Secure; the CSRF token and the stored hash differ from the cookie and each other", () => {
    expect(isSecure(new Request("https://runner.example/login"))).toBe(true);
    expect(isSecure(new Request("http://127.0.0.1/login"))).toBe(false);
    expect(sessionSetCookie("v", true)).toEndWith("; Secure");
    expect(sessionSetCookie("v", false)).not.toContain("Secure");
    const v = "A".repeat(43);
    expect(new Set([v, csrfToken(v), sessionHash(v)]).size).toBe(3);
    // Only a well-formed value is ever looked up.
    const req = (cookie: string) => new Request("http://x/", { headers: { cookie } });
    expect(sessionCookie(req(`a=1; runner_session=${v}`))).toBe(v);
    expect(sessionCookie(req("runner_session=rpcap_abc"))).toBeNull();
    expect(sessionCookie(req(`runner_session=${v}x`))).toBeNull();
  });

  test("next= only ever goes to a local path", () => {
    expect(safeNext("/profiling/captures/x?y=1")).toBe("/profiling/captures/x?y=1");
    for (const bad of ["//evil.example", "https://evil.example", "/\\evil.example", "/login", null, "", "javascript:alert(1)"]) {
      expect(safeNext(bad)).toBe("/profiling");
    }
  });
});

describe("CSRF", () => {
  test("a form without the session's token, with another session's token, or from another origin is refused", async () => {
    const owner = await web.member("acme", "a@acme.test", "owner");
    const other = await web.member("acme", "b@acme.test", "owner");
    expect((await owner.post("/settings/profiler", { enabled: "1" }, { csrf: null })).status).toBe(403);
    expect((await owner.post("/settings/profiler", { enabled: "1" }, { csrf: other.csrf })).status).toBe(403);
    expect((await owner.post("/settings/profiler", { enabled: "1" }, { origin: "https://evil.example" })).status).toBe(403);
    expect((await web.store.getOrg("acme"))!.profilerEnabled).toBe(false);
    expect((await owner.post("/settings/profiler", { enabled: "1" })).status).toBe(303);
    expect((await web.store.getOrg("acme"))!.profilerEnabled).toBe(true);
  });

  test("a form posted as JSON is refused (only form encoding is accepted)", async () => {
    const owner = await web.member("acme", "a@acme.test", "owner");
    const res = await owner.post("/settings/profiler", { enabled: "1" }, { headers: { "content-type": "application/json" } });
    expect(res.status).toBe(415);
  });
});

describe("pages", () => {
  test("every page carries a strict CSP, nosniff and no-store; assets are served from the executable", async () => {
    const c = await web.member("acme", "a@acme.test", "owner");
    const res = await c.get("/profiling");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    expect(html).not.toMatch(/<script>(?!\s*<\/script>)/); // no inline script
    const links = [...html.matchAll(/(?:href|src)="(\/assets\/(?:app\.css|app\.js|icon\.svg)\?v=[a-z0-9]+)"/g)].map((m) => m[1]!);
    expect(links.map((a) => a.split("?")[0]).sort()).toEqual(["/assets/app.css", "/assets/app.js", "/assets/icon.svg"]);
    expect(html).toMatch(/<link rel="icon" type="image\/svg\+xml" href="\/assets\/icon\.svg\?v=[a-z0-9]+">/);
    for (const a of links) {
      const r = await fetch(web.url + a);
      expect(r.status).toBe(200);
      expect(r.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect((await r.text()).length).toBeGreaterThan(a.startsWith("/assets/icon.svg") ? 100 : 500);
      const again = await fetch(web.url + a, { headers: { "if-none-match": r.headers.get("etag")! } });
      expect(again.status).toBe(304);
      const stale = await fetch(`${web.url}${a.split("?")[0]}?v=old`);
      expect(stale.status).toBe(200);
      expect(stale.headers.get("cache-control")).toBe("no-cache");
    }
    expect((await fetch(`${web.url}/assets/nope.js`)).status).toBe(404);
  });

  test("the icon is an SVG; /favicon.ico, which browsers ask for unprompted, answers with it rather than a 404", async () => {
    const c = await web.member("acme", "a@acme.test", "owner");
    const href = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)">/.exec(await (await c.get("/profiling")).text())![1]!;
    const icon = await fetch(web.url + href);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    const svg = await icon.text();
    expect(svg).toStartWith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">');
    expect(svg).not.toMatch(/<script|on[a-z]+=/i); // an image, nothing that runs
    // Signed out too: the browser asks before anyone signs in.
    const ico = await fetch(`${web.url}/favicon.ico`);
    expect({ status: ico.status, type: ico.headers.get("content-type"), cache: ico.headers.get("cache-control") }).toEqual({ status: 200, type: "image/svg+xml", cache: "no-cache" });
    expect(await ico.text()).toBe(svg);
    expect((await fetch(`${web.url}/favicon.ico`, { headers: { "if-none-match": ico.headers.get("etag")! } })).status).toBe(304);
  });
});
