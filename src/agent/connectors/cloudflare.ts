import { Type } from "@sinclair/typebox";
import type { Connector } from "../catalog.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { httpJson, type HttpResult, urlOf } from "./http.ts";
import { limit, obj, optStr, type RestRequest, type RestSpec, restOperations, seg } from "./rest-op.ts";

// Cloudflare (edge/DNS platform): CLOUDFLARE_API_TOKEN with Zone:Read and DNS:Read, scoped to the
// zones that are needed, not the whole account. RUNNER_CLOUDFLARE_ZONES (optional, comma-separated
// zone names) is the set the token should see: health flags a token that sees more (wider than
// needed) or fewer (Zone:Read missing on them). RUNNER_CLOUDFLARE_URL (default
// https://api.cloudflare.com/client/v4) for proxies and tests.

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

async function health(h: CloudflareHandle) {
  const v = await get(h, { path: "/user/tokens/verify" });
  if (v.status !== 200 || v.body?.result?.status !== "active") throw refusal("cloudflare health (verify)", [], v.status === 200 ? { ...v, status: 401 } : v);
  const z = await get(h, { path: "/zones", query: { per_page: 50 } });
  if (z.status !== 200) throw refusal("cloudflare health (zones)", [ZONE_READ], z);
  const seen: { id: string; name: string }[] = z.body?.result ?? [];
  if (!seen.length) throw new AgentError("permission", "the token sees no zone: it lacks Zone:Read, or its zone resources include no zone", { missing: [ZONE_READ], fix: "edit the token: Zone:Read + DNS:Read, Zone Resources = the zones needed" });
  const names = seen.map((s) => s.name);
  const notVisible = h.zones.filter((n) => !names.includes(n));
  if (notVisible.length) throw new AgentError("permission", `the token cannot read zone ${notVisible.join(", ")}`, { missing: notVisible.map((n) => `${ZONE_READ} on ${n}`), fix: `add ${notVisible.join(", ")} to the token's Zone Resources` });
  for (const zone of seen.filter((s) => !h.zones.length || h.zones.includes(s.name))) {
    const d = await get(h, { path: `/zones/${seg(zone.id)}/dns_records`, query: { per_page: 1 } });
    if (d.status !== 200) throw new AgentError("permission", `the token lacks DNS:Read on ${zone.name}`, { missing: [`${DNS_READ} on ${zone.name}`], fix: "edit the token: add DNS:Read for these zones" });
  }
  const extra = h.zones.length ? names.filter((n) => !h.zones.includes(n)) : [];
  if (extra.length) {
    return { status: "ok" as const, detail: `Zone:Read + DNS:Read ok; the token also sees ${extra.join(", ")}, outside RUNNER_CLOUDFLARE_ZONES`, fix: `narrow the token's Zone Resources to ${h.zones.join(", ")} (scope to needed zones, not the whole account)` };
  }
  return { status: "ok" as const, detail: `Zone:Read + DNS:Read on ${names.join(", ")}${h.zones.length ? "" : " (set RUNNER_CLOUDFLARE_ZONES to check the token is not wider than needed)"}` };
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
