// The one HTTP request a tunnel connection starts with: a WebSocket upgrade at TUNNEL_PATH (RFC 6455
// §4.2), or GET /healthz. Anything else is answered and the connection closed: the tunnel port
// serves no other HTTP, so it keeps none alive.
import { createHash } from "node:crypto";
import { TUNNEL_PATH } from "../../protocol/tunnel.ts";

/** An upgrade request is a few hundred bytes; a head that has not ended by then is refused. */
export const MAX_REQUEST_HEAD_BYTES = 8 * 1024;

const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

export type HeadOutcome = { kind: "incomplete" } | { kind: "upgrade"; response: string; rest: Buffer } | { kind: "answer"; response: string };

const answer = (status: string, body: string, extra = ""): HeadOutcome => ({
  kind: "answer",
  response: `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n${extra}\r\n${body}`,
});

/** Reads the request head buffered so far and says what to do with the connection. */
export function readRequestHead(buffered: Buffer): HeadOutcome {
  const end = buffered.indexOf("\r\n\r\n");
  if (end < 0) return buffered.length > MAX_REQUEST_HEAD_BYTES ? answer("431 Request Header Fields Too Large", "request head too large\n") : { kind: "incomplete" };
  if (end > MAX_REQUEST_HEAD_BYTES) return answer("431 Request Header Fields Too Large", "request head too large\n");
  const [requestLine = "", ...lines] = buffered.subarray(0, end).toString("latin1").split("\r\n");
  const [method, target = ""] = requestLine.split(" ");
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const path = target.split("?")[0];
  if (method !== "GET") return answer("405 Method Not Allowed", "method not allowed\n", "allow: GET\r\n");
  if (path === "/healthz") return answer("200 OK", "ok\n");
  if (path !== TUNNEL_PATH) return answer("404 Not Found", "not found\n");
  const key = headers.get("sec-websocket-key") ?? "";
  const wantsUpgrade = (headers.get("upgrade") ?? "").toLowerCase() === "websocket" && /\bupgrade\b/i.test(headers.get("connection") ?? "");
  if (!wantsUpgrade || !/^[A-Za-z0-9+/]{22}==$/.test(key)) return answer("426 Upgrade Required", "expected a WebSocket upgrade\n", "upgrade: websocket\r\n");
  if (headers.get("sec-websocket-version") !== "13") return answer("426 Upgrade Required", "WebSocket version 13 only\n", "sec-websocket-version: 13\r\n");
  const accept = createHash("sha1").update(key + WS_GUID).digest("base64");
  return {
    kind: "upgrade",
    response: `HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`,
    rest: buffered.subarray(end + 4),
  };
}
