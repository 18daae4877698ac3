import { Type } from "@sinclair/typebox";
import type { Connector } from "../catalog.ts";
import { requireSecret } from "../credentials/require-secret.ts";
import { AgentError } from "../errors.ts";
import { httpJson, urlOf } from "./http.ts";
import { limit, obj, optStr, type RestRequest, type RestSpec, restOperations } from "./rest-op.ts";

// Slack (chat platform), a bot token SLACK_BOT_TOKEN (xoxb-…). Reads: list conversations, read
// history. The two writes of the whole catalog that are chat: chat.postMessage and
// chat.createChannel (Slack's conversations.create). RUNNER_SLACK_API_URL (default
// https://slack.com/api) for proxies and tests.
//
// Slack answers 200 with {ok:false,error:"missing_scope",needed,provided}; the needed scope is
// what the diagnostic names. auth.test returns the token's scopes in X-OAuth-Scopes, which is
// what health compares against the table of the reference.

export const SLACK_READ_SCOPES = ["channels:read", "groups:read", "channels:history", "groups:history"];
const WRITE_SCOPES: [string, string][] = [
  ["chat:write", "chat.postMessage"],
  ["channels:manage", "chat.createChannel"],
];

export interface SlackHandle {
  base: string;
  token: string;
}

const channel = Type.String({ pattern: "^[A-Z0-9]{8,20}$" }); // a conversation id (C…, G…, D…), not a #name

const specs: RestSpec[] = [
  { name: "slack.conversations.list", summary: "public and private channels the bot can see", needs: ["channels:read", "groups:read"], args: obj({ types: Type.Optional(Type.String({ pattern: "^(public_channel|private_channel)(,(public_channel|private_channel))?$" })), limit: limit(1000), cursor: optStr }), example: { limit: 100 }, request: (a) => ({ path: "/conversations.list", query: { types: "public_channel,private_channel", exclude_archived: true, ...a } }) },
  { name: "slack.conversations.history", summary: "messages of a channel", needs: ["channels:history", "groups:history"], args: obj({ channel, oldest: optStr, latest: optStr, limit: limit(1000), cursor: optStr }), example: { channel: "C0123456789", limit: 50 }, request: (a) => ({ path: "/conversations.history", query: a }) },
  { name: "chat.postMessage", access: "write", summary: "post a message (write)", needs: ["chat:write"], args: obj({ channel, text: Type.String({ minLength: 1, maxLength: 40000 }), thread_ts: optStr }), example: { channel: "C0123456789", text: "Capture 42 finished: p99 regression in handleCapture" }, request: (a) => ({ method: "POST", path: "/chat.postMessage", json: a }) },
  { name: "chat.createChannel", access: "write", summary: "create a public channel (write; Slack conversations.create)", needs: ["channels:manage"], args: obj({ name: Type.String({ pattern: "^[a-z0-9_-]{1,80}$" }) }), example: { name: "incident-42" }, request: (a) => ({ method: "POST", path: "/conversations.create", json: { name: a.name, is_private: false } }) },
];

async function send(h: SlackHandle, req: RestRequest) {
  return httpJson(urlOf(h.base, req.path, req.query), { method: req.method, json: req.json, headers: { authorization: `Bearer ${h.token}` } });
}

async function call(h: SlackHandle, s: RestSpec, req: RestRequest): Promise<unknown> {
  const res = await send(h, req);
  if (res.status === 200 && res.body?.ok === true) return res.body;
  const err = String(res.body?.error ?? `HTTP ${res.status}`);
  if (err === "missing_scope") {
    const missing = String(res.body?.needed ?? s.needs.join(",")).split(",").filter(Boolean);
    throw new AgentError("permission", `${s.name} was refused: the bot token lacks scope ${missing.join(", ")}`, { missing, fix: `add bot scope ${missing.join(", ")} under OAuth & Permissions and reinstall the app` });
  }
  if (err === "invalid_auth" || err === "not_authed" || err === "token_revoked" || err === "account_inactive") {
    throw new AgentError("permission", `${s.name} was refused: Slack says ${err} (the bot token is invalid or revoked)`, { fix: "reinstall the app and set the new SLACK_BOT_TOKEN" });
  }
  if (err === "not_in_channel" || err === "channel_not_found") {
    throw new AgentError("permission", `${s.name}: Slack says ${err} — invite the bot to the channel (/invite @<bot>)`, { fix: "invite the bot to the channel" });
  }
  throw new AgentError("upstream", `${s.name} failed: Slack says ${err}`);
}

export const slackConnector: Connector<SlackHandle> = {
  name: "slack",
  unconfigured: (ctx) => (ctx.env.SLACK_BOT_TOKEN || ctx.env.RUNNER_SLACK_API_URL ? null : "neither SLACK_BOT_TOKEN nor RUNNER_SLACK_API_URL is set"),
  async open(ctx) {
    const token = await requireSecret(ctx, "SLACK_BOT_TOKEN", "a bot token with channels:read, groups:read, channels:history, groups:history");
    return { base: ctx.env.RUNNER_SLACK_API_URL || "https://slack.com/api", token };
  },
  async health(h) {
    const res = await send(h, { path: "/auth.test" });
    if (res.body?.ok !== true) throw new AgentError("permission", `Slack rejected SLACK_BOT_TOKEN: ${res.body?.error ?? `HTTP ${res.status}`}`, { fix: "reinstall the app and set the new SLACK_BOT_TOKEN" });
    const have = (res.headers.get("x-oauth-scopes") ?? "").split(",").map((s) => s.trim());
    const missing = SLACK_READ_SCOPES.filter((s) => !have.includes(s));
    const who = `${res.body.user ?? "bot"} in ${res.body.team ?? "workspace"}`;
    if (missing.length) {
      throw new AgentError("permission", `bot ${who} lacks read scope ${missing.join(", ")}`, { missing, fix: `add bot scope ${missing.join(", ")} under OAuth & Permissions and reinstall the app` });
    }
    const absentWrites = WRITE_SCOPES.filter(([s]) => !have.includes(s));
    if (!absentWrites.length) return { status: "ok", detail: `bot ${who}: reads, chat.postMessage and chat.createChannel available` };
    return {
      status: "ok",
      detail: `bot ${who}: reads ok; without ${absentWrites.map(([s, o]) => `${s}, ${o} is unavailable`).join("; without ")}`,
      missing: absentWrites.map(([s]) => `${s} (optional)`),
      fix: `optional: add ${absentWrites.map(([s]) => s).join(", ")} to enable ${absentWrites.map(([, o]) => o).join(", ")}`,
    };
  },
  operations: restOperations<SlackHandle>("slack", "oauth-scope", call, specs),
};
