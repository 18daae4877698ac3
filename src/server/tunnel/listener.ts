// The tunnel endpoint (wss://HOST:PORT/tunnel, 8443 in the reference setup). Profilers connect out
// to it; the control plane never connects in. A connection is anonymous until it answers the
// challenge with a signature made by the key enrolled for its (tenant, instance id); only then is it
// a session that can receive capture orders. Heartbeats both ways; a peer silent for
// HEARTBEAT_DEAD_MS is dropped, so a dead Profiler is noticed within 30 s.

import type { Socket } from "bun";
import { Value } from "@sinclair/typebox/value";
import { listenOrExplain } from "../../listen-failure.ts";
import type { Logger } from "../../log.ts";
import {
  HEARTBEAT_DEAD_MS,
  HEARTBEAT_INTERVAL_MS,
  HELLO_DEADLINE_MS,
  HELLO_MAX_BYTES,
  ProfilerMessage,
  TUNNEL_PATH,
  type ServerMessage,
} from "../../protocol/tunnel.ts";
import { MAX_TUNNEL_FRAME_BYTES } from "../../protocol/profile-limits.ts";
import { gateCaps, HandshakeGate } from "./handshake-gate.ts";
import { verifyHandshake } from "./verify.ts";
import { clipForLog, WarnLimiter } from "./warn-limiter.ts";
import { WsConnection } from "./ws-connection.ts";

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

/** One accepted connection, from the TCP accept on. */
interface Peer {
  address: string;
  ws: WsConnection;
  challenge: string;
  lastHeard: number;
  /** holds a place in the handshake gate until welcomed or gone */
  gated: boolean;
  /** a hello was read: anything more before `welcome` is refused */
  saidHello: boolean;
  helloDeadline: ReturnType<typeof setTimeout> | null;
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
  /** the caps of the handshake gate (default: from this process's descriptor limit) */
  gate?: { total: number; perAddress: number };
}

export function startTunnelListener(opts: TunnelListenerOptions) {
  const { logger, events } = opts;
  const peers = new Set<Peer>();
  const gate = new HandshakeGate(opts.gate ?? gateCaps());
  const warnings = new WarnLimiter(logger);

  const send = (p: Peer, msg: ServerMessage) => p.ws.send(JSON.stringify(msg));
  const ungate = (p: Peer) => {
    if (p.gated) gate.release(p.address);
    p.gated = false;
    if (p.helloDeadline) clearTimeout(p.helloDeadline);
    p.helloDeadline = null;
  };

  const accept = (socket: Socket<Peer | undefined>) => {
    const address = socket.remoteAddress;
    const admitted = gate.admit(address);
    if (admitted !== "admitted") {
      warnings.warn(admitted === "total" ? "tunnel: too many connections awaiting their handshake; refusing new ones" : "tunnel: too many connections awaiting their handshake from one address; refusing its new ones", { address, waiting: gate.waiting });
      socket.terminate();
      return;
    }
    const peer: Peer = { address, ws: undefined as unknown as WsConnection, challenge: "", lastHeard: Date.now(), gated: true, saidHello: false, helloDeadline: null, session: null, closing: null };
    peer.helloDeadline = setTimeout(() => {
      peer.helloDeadline = null;
      if (!peer.session) peer.ws.close(4408, "no handshake");
    }, HELLO_DEADLINE_MS);
    peer.ws = new WsConnection(socket as Socket<unknown>, {
      // Before welcome, nothing larger than a hello; after, a result carrying the largest profile.
      limit: () => (peer.session ? MAX_TUNNEL_FRAME_BYTES : HELLO_MAX_BYTES),
      open: () => {
        peer.challenge = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
        peers.add(peer);
        send(peer, { type: "challenge", challenge: peer.challenge });
      },
      message: (text) => void receive(peer, text),
      closed: (code, reason) => {
        ungate(peer);
        peers.delete(peer);
        const s = peer.session;
        if (s) events.down(s, peer.closing ?? `tunnel closed (${code}${reason ? ` ${clipForLog(reason)}` : ""})`);
      },
    });
    socket.data = peer;
  };

  const server = listenOrExplain("--tunnel-listen", opts.hostname, opts.port, () =>
    Bun.listen<Peer | undefined>({
      hostname: opts.hostname,
      port: opts.port,
      exclusive: true,
      tls: opts.tls,
      data: undefined,
      socket: {
        open: accept,
        // With a handshake handler, `open` runs at the TCP accept, so a TLS handshake that never
        // ends is under the gate and the hello deadline too.
        handshake: () => {},
        data: (socket, chunk) => socket.data?.ws.data(chunk),
        drain: (socket) => socket.data?.ws.drain(),
        close: (socket) => socket.data?.ws.gone(),
        error: (socket, err) => {
          warnings.warn("tunnel: connection error", { address: socket.data?.address, err: clipForLog(err.message, 200) });
          socket.data?.ws.gone();
        },
      },
    }),
  );

  async function receive(peer: Peer, text: string) {
    peer.lastHeard = Date.now();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return peer.ws.close(4400, "frames must be JSON");
    }
    if (!peer.session) {
      // Before welcome: one hello, and nothing else.
      if (peer.saidHello || !Value.Check(ProfilerMessage, parsed) || parsed.type !== "hello") {
        warnings.warn("tunnel: a frame other than one hello before the handshake; closing", { address: peer.address, type: clipForLog((parsed as { type?: unknown })?.type) });
        return peer.ws.close(4401, "handshake first");
      }
      peer.saidHello = true;
      return handshake(peer, parsed);
    }
    if (!Value.Check(ProfilerMessage, parsed)) {
      warnings.warn("tunnel: unknown message", { instance_id: peer.session.instanceId, type: clipForLog((parsed as { type?: unknown })?.type) });
      return;
    }
    const msg = parsed;
    if (msg.type === "heartbeat" || msg.type === "hello") return;
    events.message(peer.session, msg);
  }

  async function handshake(peer: Peer, hello: Extract<ProfilerMessage, { type: "hello" }>) {
    const refuse = (why: string) => {
      warnings.warn("tunnel handshake refused", { why, tenant: clipForLog(hello.tenant), instance_id: clipForLog(hello.instance_id), address: peer.address });
      peer.ws.close(4403, why);
    };
    const enrolled = await events.lookup(hello.tenant, hello.instance_id);
    if (!enrolled) return refuse("this instance is not enrolled");
    if (!enrolled.profilerEnabled) return refuse("the organization has not enabled the Profiler");
    const ok = await verifyHandshake(enrolled.publicKey, hello.signature, peer.challenge, hello.tenant, hello.instance_id);
    if (!ok) return refuse("signature does not match the enrolled key");
    if (!peer.ws.isOpen || !peer.helloDeadline) return; // gone, or past the deadline, while the key was looked up
    // A reconnecting Profiler may still have its previous socket half-open: the newest one wins.
    for (const other of peers) {
      const s = other.session;
      if (other !== peer && s && s.orgId === enrolled.orgId && s.instanceId === hello.instance_id) {
        other.closing = "replaced by a newer connection";
        other.ws.close(4409, "replaced by a newer connection");
      }
    }
    const session: TunnelSession = {
      orgId: enrolled.orgId,
      orgName: enrolled.orgName,
      instanceId: hello.instance_id,
      send: (m) => send(peer, m),
      close: (code, reason) => {
        peer.closing = reason;
        peer.ws.close(code, reason);
      },
    };
    ungate(peer);
    peer.session = session;
    send(peer, { type: "welcome", instance_id: hello.instance_id });
    logger.info({ org: enrolled.orgName, instance_id: hello.instance_id }, "profiler connected");
    events.up(session, hello.running ?? []);
  }

  const heartbeat = setInterval(() => {
    const now = Date.now();
    for (const peer of peers) {
      if (!peer.session) continue; // the hello deadline governs those
      const silent = now - peer.lastHeard;
      if (silent > HEARTBEAT_DEAD_MS) {
        logger.warn({ instance_id: peer.session.instanceId, silent_ms: silent }, "tunnel: peer silent; dropping it");
        peer.closing = `no heartbeat for ${Math.round(silent / 1000)} s`;
        peer.ws.terminate(1006, peer.closing);
      } else send(peer, { type: "heartbeat", at: now });
    }
  }, HEARTBEAT_INTERVAL_MS / 2);

  return {
    url: `${opts.tls ? "wss" : "ws"}://${opts.hostname}:${server.port}${TUNNEL_PATH}`,
    port: server.port,
    stop() {
      clearInterval(heartbeat);
      for (const peer of peers) ungate(peer);
      server.stop(true);
    },
  };
}
