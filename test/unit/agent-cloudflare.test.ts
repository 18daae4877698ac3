// Cloudflare against a local fake of scoped API tokens: Zone:Read and DNS:Read named precisely,
// and a token wider than the zones it is used for (RUNNER_CLOUDFLARE_ZONES) reported as needing
// action, as is a token whose scope cannot be judged because that variable is unset. GETs only.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { cloudflareConnector } from "../../src/agent/connectors/cloudflare.ts";
import { createAgentContext, type Env } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { type CloudflareToken, startCloudflareFake, ZONES } from "../fixtures/fakes/cloudflare.ts";
import { agentHealth } from "../helpers/runner-agent.ts";

const TOKEN = "cf_fake_api_token_0000000000000000000";
const FULL: CloudflareToken = { perms: ["Zone:Read", "DNS:Read"], zones: ["octo.example"], manyMore: 0 };
let fake: ReturnType<typeof startCloudflareFake>;
const catalog = new Catalog([cloudflareConnector]);
const ctx = (extra: Env = {}) => createAgentContext({ CLOUDFLARE_API_TOKEN: TOKEN, RUNNER_CLOUDFLARE_URL: fake.url, ...extra }, pino({ level: "silent" }));

beforeAll(() => {
  fake = startCloudflareFake(TOKEN, structuredClone(FULL));
});
afterEach(() => {
  expect(fake.violations).toEqual([]);
  fake.reset();
  Object.assign(fake.state, structuredClone(FULL));
});
afterAll(() => fake.stop());

describe("Cloudflare", () => {
  test("zones and DNS records with Zone:Read + DNS:Read", async () => {
    expect(await enforceAndRun(catalog, "cloudflare.zones.list", {}, ctx())).toEqual([ZONES[0]]);
    expect(await enforceAndRun(catalog, "cloudflare.dns.records", { zoneId: ZONES[0]!.id }, ctx())).toEqual([{ type: "A", name: "octo.example", content: "192.0.2.1" }]);
    expect(catalog.lookup("cloudflare.dns.records").permission.needs).toEqual(["Zone:Read", "DNS:Read"]);
  });

  test("without DNS:Read, DNS records name DNS:Read (Cloudflare's code 10000)", async () => {
    fake.state.perms = ["Zone:Read"];
    const e = await refusal(enforceAndRun(catalog, "cloudflare.dns.records", { zoneId: ZONES[0]!.id }, ctx()));
    expect(e.missing).toEqual(["DNS:Read"]);
    expect(e.message).toContain("10000: Authentication error");
    expect((await runHealth(catalog, ctx({ RUNNER_CLOUDFLARE_ZONES: "octo.example" })))[0]).toMatchObject({ status: "error", missing: ["DNS:Read on octo.example"] });
  });

  test("without Zone:Read the token sees no zone: health names Zone:Read", async () => {
    fake.state.perms = ["DNS:Read"];
    expect((await runHealth(catalog, ctx()))[0]).toMatchObject({ status: "error", missing: ["Zone:Read"] });
  });

  test("health checks the token's zones against RUNNER_CLOUDFLARE_ZONES: missing and wider than needed", async () => {
    expect((await runHealth(catalog, ctx({ RUNNER_CLOUDFLARE_ZONES: "octo.example" })))[0]).toMatchObject({ status: "ok", detail: "Zone:Read + DNS:Read on octo.example, exactly the zones of RUNNER_CLOUDFLARE_ZONES" });
    expect((await runHealth(catalog, ctx({ RUNNER_CLOUDFLARE_ZONES: "octo.example,octo-status.example" })))[0]).toMatchObject({ status: "error", missing: ["Zone:Read on octo-status.example"] });
    fake.state.zones = ZONES.map((z) => z.name); // an account-wide token
    const [wide] = await runHealth(catalog, ctx({ RUNNER_CLOUDFLARE_ZONES: "octo.example" }));
    expect(wide!.status).toBe("error");
    expect(wide!.detail).toContain("also sees octo-status.example");
    expect(wide!.fix).toContain("scope to needed zones");
  });

  test("a token that sees more zones than health reads is refused as too wide, not judged on the first 10,000", async () => {
    fake.state.manyMore = 10_000; // octo.example + 10,000 more
    const [h] = await runHealth(catalog, ctx({ RUNNER_CLOUDFLARE_ZONES: "octo.example" }));
    expect(h).toMatchObject({ status: "error" });
    expect(h!.detail).toContain("the token sees 10001 zones, more than the 10000 health reads");
    expect(h!.fix).toContain("scope to needed zones");
    fake.state.manyMore = 60; // two pages past the first: every page is read
    const [wide] = await runHealth(catalog, ctx({ RUNNER_CLOUDFLARE_ZONES: "octo.example" }));
    expect(wide!.detail).toContain("z60.octo.example");
  });

  test("an invalid token is named, not shown", async () => {
    const [h] = await runHealth(catalog, ctx({ CLOUDFLARE_API_TOKEN: "cf_bogus_token_00000000" }));
    expect(h!.detail).toContain("CLOUDFLARE_API_TOKEN is invalid");
    expect(JSON.stringify(h)).not.toContain("cf_bogus");
  });
});

// The compiled `runner agent health`, as a user runs it.
describe("Cloudflare zone scoping (dist/runner)", () => {
  const env = (extra: Record<string, string> = {}) => ({ CLOUDFLARE_API_TOKEN: TOKEN, RUNNER_CLOUDFLARE_URL: fake.url, ...extra });

  test("an account-wide token used for one zone needs action (exit 1), naming the extra zone and the fix", async () => {
    fake.state.zones = ZONES.map((z) => z.name); // "All zones from an account"
    const h = await agentHealth(env({ RUNNER_CLOUDFLARE_ZONES: "octo.example" }));
    expect(h.code).toBe(1);
    const row = h.of("cloudflare");
    expect(row.status).toBe("error");
    expect(row.detail).toContain("wider than the zones it is used for: it also sees octo-status.example");
    expect(row.fix).toBe("narrow the token's Zone Resources to octo.example (scope to needed zones, not the whole account)");
  });

  test("without RUNNER_CLOUDFLARE_ZONES the scope cannot be judged: needs action, and says how to find the zones in use", async () => {
    fake.state.zones = ZONES.map((z) => z.name);
    const h = await agentHealth(env());
    expect(h.code).toBe(1);
    const row = h.of("cloudflare");
    expect(row.status).toBe("error");
    expect(row.detail).toContain("RUNNER_CLOUDFLARE_ZONES is not set");
    expect(row.detail).toContain("it sees octo.example, octo-status.example");
    expect(row.detail).toContain("the zones in use are the registered domains of the hostnames your services are reached at");
    expect(row.detail).toContain("runner agent run cloudflare.zones.list");
    expect(JSON.stringify(h.rows)).not.toContain(TOKEN);
  });

  test("without RUNNER_CLOUDFLARE_ZONES, health says so from one page of zones: no zone is probed", async () => {
    fake.state.manyMore = 500; // an account-wide token on a large account
    const h = await agentHealth(env());
    expect(h.code).toBe(1);
    expect(h.of("cloudflare").detail).toContain("RUNNER_CLOUDFLARE_ZONES is not set, so the token's scope cannot be checked: it sees 501 zones, among them octo.example, z1.octo.example");
    expect(fake.requests.map((r) => r.path)).toEqual(["/user/tokens/verify", "/zones"]);
  });

  test("a token scoped to exactly the zones in use passes (exit 0)", async () => {
    const h = await agentHealth(env({ RUNNER_CLOUDFLARE_ZONES: "octo.example" }));
    expect(h.code).toBe(0);
    expect(h.of("cloudflare").status).toBe("ok");
  });
});
