import { Type } from "@sinclair/typebox";
import type { Connector } from "../catalog.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { httpJson, type HttpResult, urlOf } from "./http.ts";
import { limit, obj, optStr, type RestRequest, type RestSpec, restOperations, seg } from "./rest-op.ts";

// Cloudflare (edge/DNS platform): CLOUDFLARE_API_TOKEN with Zone:Read and DNS:Read, scoped to the
// zones that are needed, not the whole account. RUNNER_CLOUDFLARE_ZONES (comma-separated zone
// names) is the set the token is used for: health needs it, and reports as needing action a token
// that sees more zones (wider than needed), fewer (Zone:Read missing on them), or — when the
// variable is unset — a token whose scope cannot be judged, with how to find the zones in use.
// Operations work without it. RUNNER_CLOUDFLARE_URL (default https://api.cloudflare.com/client/v4)
// for proxies and tests.

const ZONE_READ = "Zone:Read";
const DNS_READ = "DNS:Read";

export interface CloudflareHandle {
  base: string;
  token: string;
  zones: string[];
}

const zoneId = Type.String({ pattern: "^[0-9a-f]{32}$" });

const specs: RestSpec[] = [
  { name: "cloudflare.zones.list", summary: "zones the token can read", needs: [ZONE_READ], args: obj({ name: optStr, per_page: limit(50) }), example: {}, request: (a) => ({ path: "/zones", query: a }) },
  { name: "cloudflare.zones.get", summary: "one zone (status, plan, name servers)", needs: [ZONE_READ], args: obj({ zoneId }), example: { zoneId: "023e105f4ecef8ad9ca31a8372d0c353" }, request: (a) => ({ path: `/zones/${seg(a.zoneId)}` }) },
  { name: "cloudflare.dns.records", summary: "DNS records of a zone", needs: [ZONE_READ, DNS_READ], args: obj({ zoneId, type: optStr, name: optStr, per_page: limit(5000) }), example: { zoneId: "023e105f4ecef8ad9ca31a8372d0c353", type: "A" }, request: ({ zoneId: z, ...q }) => ({ path: `/zones/${seg(z)}/dns_records`, query: q }) },
];

async function get(h: CloudflareHandle, req: RestRequest): Promise<HttpResult> {
  return httpJson(urlOf(h.base, req.path, req.query), { headers: { authorization: `Bearer ${h.token}` } });
}

function refusal(opName: string, needs: string[], res: HttpResult): AgentError {
  const said = (res.body?.errors ?? []).map((e: { code?: number; message?: string }) => `${e.code}: ${e.message}`).join("; ");
  if (res.status === 401 || (res.status === 400 && /token/i.test(said))) return new AgentError("permission", `${opName} was refused (${res.status}): CLOUDFLARE_API_TOKEN is invalid or expired`, { fix: "create a new API token with Zone:Read and DNS:Read" });
  if (res.status === 403 || res.status === 404) {
    const missing = needs.filter((n) => n !== ZONE_READ).length ? needs.filter((n) => n !== ZONE_READ) : [ZONE_READ];
    return new AgentError("permission", `${opName} was refused (${res.status}${said ? `, ${said}` : ""}): the token lacks ${missing.join(" + ")} on this zone, or the zone is outside its zone resources`, { missing, fix: `edit the token: add ${missing.join(" + ")} for the zone under Zone Resources` });
  }
  return new AgentError("upstream", `${opName} failed: Cloudflare answered ${res.status}${said ? ` (${said})` : ""}`);
}

async function call(h: CloudflareHandle, s: RestSpec, req: RestRequest): Promise<unknown> {
  const res = await get(h, req);
  if (res.status === 200 && res.body?.success !== false) return res.body?.result;
  throw refusal(s.name, s.needs, res);
}

// How a person finds the zones the Agent is used for: the registered domain of each hostname the
// services are reached at is a zone (api.shop.example → shop.example).
const FIND_ZONES =
  "the zones in use are the registered domains of the hostnames your services are reached at (api.shop.example is in zone shop.example); " +
  "`runner agent run cloudflare.zones.list` lists every zone the token can see, and `runner agent run cloudflare.dns.records --args '{\"zoneId\":\"…\"}'` shows which of them hold your records";

/** How many zones health reads (200 pages of 50): a token that sees more is refused, not cut. */
const MAX_VISIBLE_ZONES = 10_000;

/** Every zone the token can see, all pages (Cloudflare pages /zones at most 50 per page). */
async function visibleZones(h: CloudflareHandle): Promise<{ id: string; name: string }[]> {
  const seen: { id: string; name: string }[] = [];
  for (let page = 1; ; page++) {
    const z = await get(h, { path: "/zones", query: { per_page: 50, page } });
    if (z.status !== 200) throw refusal("cloudflare health (zones)", [ZONE_READ], z);
    const total = Number(z.body?.result_info?.total_count ?? 0);
    // Reading on would take hundreds of calls, and stopping silently would judge the scope on
    // part of it; no token used for a few services needs to see this many zones.
    if (total > MAX_VISIBLE_ZONES) {
      throw new AgentError("permission", `the token sees ${total} zones, more than the ${MAX_VISIBLE_ZONES} health reads: it is not scoped to the zones it is used for`, {
        missing: [],
        fix: "narrow the token's Zone Resources to the zones in use (scope to needed zones, not the whole account)",
      });
    }
    seen.push(...((z.body?.result ?? []) as { id: string; name: string }[]).map(({ id, name }) => ({ id, name })));
    const pages = Number(z.body?.result_info?.total_pages ?? 1);
    if (page >= pages) return seen;
  }
}

const noZone = () =>
  new AgentError("permission", "the token sees no zone: it lacks Zone:Read, or its zone resources include no zone", { missing: [ZONE_READ], fix: "edit the token: Zone:Read + DNS:Read, Zone Resources = the zones needed" });

/**
 * RUNNER_CLOUDFLARE_ZONES unset: the token's scope cannot be judged, whatever it sees, so health
 * says so at once, from the first page of zones (one request), without reading every zone.
 */
async function zonesUnset(h: CloudflareHandle): Promise<never> {
  const z = await get(h, { path: "/zones", query: { per_page: 50, page: 1 } });
  if (z.status !== 200) throw refusal("cloudflare health (zones)", [ZONE_READ], z);
  const names = ((z.body?.result ?? []) as { name: string }[]).map((s) => s.name);
  if (!names.length) throw noZone();
  const total = Number(z.body?.result_info?.total_count ?? names.length);
  const sees = total > names.length ? `${total} zones, among them ${names.join(", ")}` : names.join(", ");
  // Without the zones in use, a token that covers every zone of the account (including zones
  // added later) would pass unnoticed.
  throw new AgentError(
    "misconfigured",
    `RUNNER_CLOUDFLARE_ZONES is not set, so the token's scope cannot be checked: it sees ${sees}; a token wider than the zones it is used for must be narrowed. To find the zones in use: ${FIND_ZONES}`,
    { fix: `set RUNNER_CLOUDFLARE_ZONES to the zones in use, and narrow the token's Zone Resources to them (${FIND_ZONES})` },
  );
}

async function health(h: CloudflareHandle) {
  const v = await get(h, { path: "/user/tokens/verify" });
  if (v.status !== 200 || v.body?.result?.status !== "active") throw refusal("cloudflare health (verify)", [], v.status === 200 ? { ...v, status: 401 } : v);
  if (!h.zones.length) return zonesUnset(h);
  const seen = await visibleZones(h);
  if (!seen.length) throw noZone();
  const names = seen.map((s) => s.name);
  const notVisible = h.zones.filter((n) => !names.includes(n));
  if (notVisible.length) throw new AgentError("permission", `the token cannot read zone ${notVisible.join(", ")}`, { missing: notVisible.map((n) => `${ZONE_READ} on ${n}`), fix: `add ${notVisible.join(", ")} to the token's Zone Resources` });
  for (const zone of seen.filter((s) => h.zones.includes(s.name))) {
    const d = await get(h, { path: `/zones/${seg(zone.id)}/dns_records`, query: { per_page: 1 } });
    if (d.status !== 200) throw new AgentError("permission", `the token lacks DNS:Read on ${zone.name}`, { missing: [`${DNS_READ} on ${zone.name}`], fix: "edit the token: add DNS:Read for these zones" });
  }
  const extra = names.filter((n) => !h.zones.includes(n));
  if (extra.length) {
    // Wider than needed is a finding to act on, not a note: the reference says scope to the
    // needed zones, not the whole account.
    throw new AgentError(
      "permission",
      `the token is wider than the zones it is used for: it also sees ${extra.join(", ")}, outside RUNNER_CLOUDFLARE_ZONES (${h.zones.join(", ")}); scope it to the needed zones, not the whole account. If one of them is in use too, add it to RUNNER_CLOUDFLARE_ZONES (${FIND_ZONES})`,
      { fix: `narrow the token's Zone Resources to ${h.zones.join(", ")} (scope to needed zones, not the whole account)` },
    );
  }
  return { status: "ok" as const, detail: `Zone:Read + DNS:Read on ${names.join(", ")}, exactly the zones of RUNNER_CLOUDFLARE_ZONES` };
}

export const cloudflareConnector: Connector<CloudflareHandle> = {
  name: "cloudflare",
  unconfigured: (ctx) => (ctx.env.CLOUDFLARE_API_TOKEN || ctx.env.RUNNER_CLOUDFLARE_URL ? null : "neither CLOUDFLARE_API_TOKEN nor RUNNER_CLOUDFLARE_URL is set"),
  async open(ctx) {
    const token = await requireSecret(ctx, "CLOUDFLARE_API_TOKEN", "Zone:Read + DNS:Read, scoped to the needed zones");
    const zones = (ctx.env.RUNNER_CLOUDFLARE_ZONES ?? "").split(",").map((z) => z.trim()).filter(Boolean);
    return { base: ctx.env.RUNNER_CLOUDFLARE_URL || "https://api.cloudflare.com/client/v4", token, zones };
  },
  health,
  operations: restOperations<CloudflareHandle>("cloudflare", "platform", call, specs),
};
