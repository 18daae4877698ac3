// The tunnel endpoint (wss://HOST:PORT/tunnel, 8443 in the reference setup). Profilers connect out
// to it; the control plane never connects in. A connection is anonymous until it answers the
// challenge with a signature made by the key enrolled for its (tenant, instance id); only then is it
// a session that can receive capture orders. Heartbeats both ways; a peer silent for
// HEARTBEAT_DEAD_MS is dropped, so a dead Profiler is noticed within 30 s.

import type { ServerWebSocket } from "bun";
import { Value } from "@sinclair/typebox/value";
import { listenOrExplain } from "../../listen-failure.ts";
import type { Logger } from "../../log.ts";
import {
  HEARTBEAT_DEAD_MS,
  HEARTBEAT_INTERVAL_MS,
  ProfilerMessage,
  TUNNEL_PATH,
  type ServerMessage,
} from "../../protocol/tunnel.ts";
import { MAX_TUNNEL_FRAME_BYTES } from "../../protocol/profile-limits.ts";
import { verifyHandshake } from "./verify.ts";

const HELLO_TIMEOUT_MS = 10_000;

export interface EnrolledProfiler {
  orgId: number;
  orgName: string;
  publicKey: string;
  profilerEnabled: boolean;
}

export interface TunnelSession {
  readonly orgId: number;
  readonly orgName: string;
  readonly instanceId: string;
  send(msg: ServerMessage): boolean;
  close(code: number, reason: string): void;
}

export interface TunnelEvents {
  lookup(tenant: string, instanceId: string): Promise<EnrolledProfiler | null>;
  up(session: TunnelSession, running: readonly string[]): void;
  down(session: TunnelSession, why: string): void;
  message(session: TunnelSession, msg: Exclude<ProfilerMessage, { type: "hello" | "heartbeat" }>): void;
}

interface SocketData {
  challenge: string;
  lastHeard: number;
  session: TunnelSession | null;
  /** set when the control plane itself ends the connection, with why */
  closing: string | null;
}

export interface TunnelListenerOptions {
  hostname: string;
  port: number;
  tls?: { cert: string; key: string };
  logger: Logger;
  events: TunnelEvents;
}

export function startTunnelListener(opts: TunnelListenerOptions) {
  const { logger, events } = opts;
  const sockets = new Set<ServerWebSocket<SocketData>>();

  const send = (ws: ServerWebSocket<SocketData>, msg: ServerMessage) => ws.send(JSON.stringify(msg)) > 0;

  const server = listenOrExplain("--tunnel-listen", opts.hostname, opts.port, () => Bun.serve<SocketData, never>({
    hostname: opts.hostname,
    port: opts.port,
    tls: opts.tls,
    fetch(req, srv) {
      const url = new URL(req.url);
      if (url.pathname === "/healthz") return new Response("ok\n");
      if (url.pathname !== TUNNEL_PATH) return new Response("not found\n", { status: 404 });
      const challenge = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
      if (srv.upgrade(req, { data: { challenge, lastHeard: Date.now(), session: null, closing: null } })) return undefined;
      return new Response("expected a WebSocket upgrade\n", { status: 426 });
    },
    websocket: {
      // A result carrying the largest profile the decompression limit accepts, and no more (see profile-limits.ts).
      maxPayloadLength: MAX_TUNNEL_FRAME_BYTES,
      idleTimeout: 0, // our own heartbeat decides liveness
      open(ws) {
        sockets.add(ws);
        send(ws, { type: "challenge", challenge: ws.data.challenge });
      },
      async message(ws, raw) {
        ws.data.lastHeard = Date.now();
        let parsed: unknown;
        try {
          parsed = JSON.parse(typeof raw === "string" ? raw : raw.toString());
        } catch {
          return ws.close(4400, "frames must be JSON");
        }
        if (!Value.Check(ProfilerMessage, parsed)) {
          logger.warn({ type: (parsed as { type?: unknown })?.type }, "tunnel: unknown message");
          return;
        }
        const msg = parsed;
        if (msg.type === "heartbeat") return;
        if (!ws.data.session) {
          if (msg.type !== "hello") return ws.close(4401, "handshake first");
          await handshake(ws, msg);
          return;
        }
        if (msg.type === "hello") return;
        events.message(ws.data.session, msg);
      },
      close(ws, code, reason) {
        sockets.delete(ws);
        const s = ws.data.session;
        if (s) events.down(s, ws.data.closing ?? `tunnel closed (${code}${reason ? ` ${reason}` : ""})`);
      },
    },
  }));

  async function handshake(ws: ServerWebSocket<SocketData>, hello: Extract<ProfilerMessage, { type: "hello" }>) {
    const refuse = (why: string) => {
      logger.warn({ tenant: hello.tenant, instance_id: hello.instance_id }, `tunnel handshake refused: ${why}`);
      ws.close(4403, why);
    };
    const enrolled = await events.lookup(hello.tenant, hello.instance_id);
    if (!enrolled) return refuse("this instance is not enrolled");
    if (!enrolled.profilerEnabled) return refuse("the organization has not enabled the Profiler");
    const ok = await verifyHandshake(enrolled.publicKey, hello.signature, ws.data.challenge, hello.tenant, hello.instance_id);
    if (!ok) return refuse("signature does not match the enrolled key");
    // A reconnecting Profiler may still have its previous socket half-open: the newest one wins.
    for (const other of sockets) {
      const s = other.data.session;
      if (other !== ws && s && s.orgId === enrolled.orgId && s.instanceId === hello.instance_id) {
        other.data.closing = "replaced by a newer connection";
        other.close(4409, "replaced by a newer connection");
      }
    }
    const session: TunnelSession = {
      orgId: enrolled.orgId,
      orgName: enrolled.orgName,
      instanceId: hello.instance_id,
      send: (m) => send(ws, m),
      close: (code, reason) => {
        ws.data.closing = reason;
        ws.close(code, reason);
      },
    };
    ws.data.session = session;
    send(ws, { type: "welcome", instance_id: hello.instance_id });
    logger.info({ org: enrolled.orgName, instance_id: hello.instance_id }, "profiler connected");
    events.up(session, hello.running ?? []);
  }

  const heartbeat = setInterval(() => {
    const now = Date.now();
    for (const ws of sockets) {
      const silent = now - ws.data.lastHeard;
      if (!ws.data.session && silent > HELLO_TIMEOUT_MS) ws.close(4408, "no handshake");
      else if (silent > HEARTBEAT_DEAD_MS) {
        logger.warn({ instance_id: ws.data.session?.instanceId, silent_ms: silent }, "tunnel: peer silent; dropping it");
        ws.data.closing = `no heartbeat for ${Math.round(silent / 1000)} s`;
        ws.terminate();
      } else send(ws, { type: "heartbeat", at: now });
    }
  }, Math.min(HEARTBEAT_INTERVAL_MS, HELLO_TIMEOUT_MS) / 2);

  return {
    url: `${opts.tls ? "wss" : "ws"}://${opts.hostname}:${server.port}${TUNNEL_PATH}`,
    port: server.port,
    stop() {
      clearInterval(heartbeat);
      server.stop(true);
    },
  };
}
