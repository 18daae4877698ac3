import { Type } from "@sinclair/typebox";
import type { Connector } from "../catalog.ts";
import { AgentError } from "../errors.ts";
import { httpJson, type HttpResult, urlOf } from "./http.ts";
import { obj, optStr, type RestRequest, type RestSpec, restOperations, seg } from "./rest-op.ts";

// Amplitude (product analytics platform): AMPLITUDE_API_KEY + AMPLITUDE_SECRET_KEY (basic auth)
// with access to the dashboard and export APIs; read only. RUNNER_AMPLITUDE_URL (default
// https://amplitude.com/api/2; EU: https://analytics.eu.amplitude.com/api/2). Endpoints as the
// reference names them: /events/segmentation, /funnels, /dashboards, /charts.

const DASHBOARD_API = "Dashboard REST API access";

export interface AmplitudeHandle {
  base: string;
  auth: string;
}

const day = Type.String({ pattern: "^\\d{8}$" }); // YYYYMMDD
const event = Type.String({ minLength: 2, maxLength: 4000, pattern: "^\\{.*\\}$" }); // JSON event object, passed through

const specs: RestSpec[] = [
  { name: "amplitude.events.segmentation", summary: "event segmentation (counts/uniques over time)", needs: [DASHBOARD_API], args: obj({ e: event, start: day, end: day, m: optStr, i: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(7), Type.Literal(30), Type.Literal(-300), Type.Literal(-3600)])), s: optStr }), example: { e: '{"event_type":"checkout"}', start: "20261101", end: "20261121" }, request: (a) => ({ path: "/events/segmentation", query: a }) },
  { name: "amplitude.funnels", summary: "funnel conversion between events", needs: [DASHBOARD_API], args: obj({ e: Type.Array(event, { minItems: 2, maxItems: 10 }), start: day, end: day, mode: optStr, n: optStr }), example: { e: ['{"event_type":"view"}', '{"event_type":"checkout"}'], start: "20261101", end: "20261121" }, request: (a) => ({ path: "/funnels", query: a }) },
  { name: "amplitude.dashboards.list", summary: "dashboards", needs: [DASHBOARD_API], args: obj({}), example: {}, request: () => ({ path: "/dashboards" }) },
  { name: "amplitude.charts.get", summary: "one chart's data", needs: [DASHBOARD_API], args: obj({ chartId: Type.String({ pattern: "^[A-Za-z0-9]{4,32}$" }) }), example: { chartId: "abc123x" }, request: (a) => ({ path: `/charts/${seg(a.chartId)}` }) },
];

async function get(h: AmplitudeHandle, req: RestRequest): Promise<HttpResult> {
  return httpJson(urlOf(h.base, req.path, req.query), { headers: { authorization: h.auth } });
}

function refusal(opName: string, res: HttpResult): AgentError {
  if (res.status === 401) return new AgentError("permission", `${opName} was refused (401): AMPLITUDE_API_KEY / AMPLITUDE_SECRET_KEY are wrong, or belong to another region (set RUNNER_AMPLITUDE_URL for EU)`, { fix: "copy the project's API key and secret key (Settings → Projects)" });
  if (res.status === 403) return new AgentError("permission", `${opName} was refused (403): the project keys lack ${DASHBOARD_API}`, { missing: [DASHBOARD_API], fix: "use keys of a project whose plan includes the Dashboard REST API" });
  if (res.status === 429) return new AgentError("upstream", `${opName}: Amplitude rate limit (429); retry later`);
  return new AgentError("upstream", `${opName} failed: Amplitude answered ${res.status}`);
}

async function call(h: AmplitudeHandle, s: RestSpec, req: RestRequest): Promise<unknown> {
  const res = await get(h, req);
  if (res.status === 200) return res.body;
  throw refusal(s.name, res);
}

export const amplitudeConnector: Connector<AmplitudeHandle> = {
  name: "amplitude",
  unconfigured: (ctx) => (ctx.env.AMPLITUDE_API_KEY || ctx.env.RUNNER_AMPLITUDE_URL ? null : "neither AMPLITUDE_API_KEY nor RUNNER_AMPLITUDE_URL is set"),
  async open(ctx) {
    const key = await ctx.secrets.get("AMPLITUDE_API_KEY");
    const secret = await ctx.secrets.get("AMPLITUDE_SECRET_KEY");
    if (!key || !secret) throw new AgentError("not_configured", "AMPLITUDE_API_KEY and AMPLITUDE_SECRET_KEY are both needed");
    const basic = Buffer.from(`${key}:${secret}`).toString("base64");
    ctx.redactor.add(basic);
    return { base: ctx.env.RUNNER_AMPLITUDE_URL || "https://amplitude.com/api/2", auth: `Basic ${basic}` };
  },
  async health(h) {
    const res = await get(h, { path: "/dashboards" });
    if (res.status !== 200) throw refusal("amplitude health (dashboards)", res);
    return { status: "ok", detail: "project keys read dashboards" };
  },
  operations: restOperations<AmplitudeHandle>("amplitude", "platform", call, specs),
};
