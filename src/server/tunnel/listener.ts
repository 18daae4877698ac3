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

/** What every connection's handlers share: the live peers, the handshake gate, and where events and warnings go. */
interface Hub {
  peers: Set<Peer>;
  gate: HandshakeGate;
  warnings: WarnLimiter;
  logger: Logger;
  events: TunnelEvents;
}

const send = (p: Peer, msg: ServerMessage) => p.ws.send(JSON.stringify(msg));

function ungate(hub: Hub, p: Peer) {
  if (p.gated) hub.gate.release(p.address);
  p.gated = false;
  if (p.helloDeadline) clearTimeout(p.helloDeadline);
  p.helloDeadline = null;
}

function accept(hub: Hub, socket: Socket<Peer | undefined>) {
  const address = socket.remoteAddress;
  const admitted = hub.gate.admit(address);
  if (admitted !== "admitted") {
    hub.warnings.warn(admitted === "total" ? "tunnel: too many connections awaiting their handshake; refusing new ones" : "tunnel: too many connections awaiting their handshake from one address; refusing its new ones", { address, waiting: hub.gate.waiting });
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
      hub.peers.add(peer);
      send(peer, { type: "challenge", challenge: peer.challenge });
    },
    message: (text) => void receive(hub, peer, text),
    closed: (code, reason) => {
      ungate(hub, peer);
      hub.peers.delete(peer);
      const s = peer.session;
      if (s) hub.events.down(s, peer.closing ?? `tunnel closed (${code}${reason ? ` ${clipForLog(reason)}` : ""})`);
    },
  });
  socket.data = peer;
}

async function receive(hub: Hub, peer: Peer, text: string) {
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
      hub.warnings.warn("tunnel: a frame other than one hello before the handshake; closing", { address: peer.address, type: clipForLog((parsed as { type?: unknown })?.type) });
      return peer.ws.close(4401, "handshake first");
    }
    peer.saidHello = true;
    return handshake(hub, peer, parsed);
  }
  if (!Value.Check(ProfilerMessage, parsed)) {
    hub.warnings.warn("tunnel: unknown message", { instance_id: peer.session.instanceId, type: clipForLog((parsed as { type?: unknown })?.type) });
    return;
  }
  const msg = parsed;
  if (msg.type === "heartbeat" || msg.type === "hello") return;
  hub.events.message(peer.session, msg);
}

async function handshake(hub: Hub, peer: Peer, hello: Extract<ProfilerMessage, { type: "hello" }>) {
  const refuse = (why: string) => {
    hub.warnings.warn("tunnel handshake refused", { why, tenant: clipForLog(hello.tenant), instance_id: clipForLog(hello.instance_id), address: peer.address });
    peer.ws.close(4403, why);
  };
  const enrolled = await hub.events.lookup(hello.tenant, hello.instance_id);
  if (!enrolled) return refuse("this instance is not enrolled");
  if (!enrolled.profilerEnabled) return refuse("the organization has not enabled the Profiler");
  const ok = await verifyHandshake(enrolled.publicKey, hello.signature, peer.challenge, hello.tenant, hello.instance_id);
  if (!ok) return refuse("signature does not match the enrolled key");
  if (!peer.ws.isOpen || !peer.helloDeadline) return; // gone, or past the deadline, while the key was looked up
  // A reconnecting Profiler may still have its previous socket half-open: the newest one wins.
  for (const other of hub.peers) {
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
  ungate(hub, peer);
  peer.session = session;
  send(peer, { type: "welcome", instance_id: hello.instance_id });
  hub.logger.info({ org: enrolled.orgName, instance_id: hello.instance_id }, "profiler connected");
  hub.events.up(session, hello.running ?? []);
}

/** Drops the welcomed peers silent for too long and sends the others a heartbeat. */
function heartbeat(hub: Hub) {
  const now = Date.now();
  for (const peer of hub.peers) {
    if (!peer.session) continue; // the hello deadline governs those
    const silent = now - peer.lastHeard;
    if (silent > HEARTBEAT_DEAD_MS) {
      hub.logger.warn({ instance_id: peer.session.instanceId, silent_ms: silent }, "tunnel: peer silent; dropping it");
      peer.closing = `no heartbeat for ${Math.round(silent / 1000)} s`;
      peer.ws.terminate(1006, peer.closing);
    } else send(peer, { type: "heartbeat", at: now });
  }
}

export function startTunnelListener(opts: TunnelListenerOptions) {
  const hub: Hub = { peers: new Set(), gate: new HandshakeGate(opts.gate ?? gateCaps()), warnings: new WarnLimiter(opts.logger), logger: opts.logger, events: opts.events };
  const server = listenOrExplain("--tunnel-listen", opts.hostname, opts.port, () =>
    Bun.listen<Peer | undefined>({
      hostname: opts.hostname,
      port: opts.port,
      exclusive: true,
      tls: opts.tls,
      data: undefined,
      socket: {
        open: (socket) => accept(hub, socket),
        // With a handshake handler, `open` runs at the TCP accept, so a TLS handshake that never
        // ends is under the gate and the hello deadline too.
        handshake: () => {},
        data: (socket, chunk) => socket.data?.ws.data(chunk),
        drain: (socket) => socket.data?.ws.drain(),
        close: (socket) => socket.data?.ws.gone(),
        error: (socket, err) => {
          hub.warnings.warn("tunnel: connection error", { address: socket.data?.address, err: clipForLog(err.message, 200) });
          socket.data?.ws.gone();
        },
      },
    }),
  );
  const beat = setInterval(() => heartbeat(hub), HEARTBEAT_INTERVAL_MS / 2);
  return {
    url: `${opts.tls ? "wss" : "ws"}://${opts.hostname}:${server.port}${TUNNEL_PATH}`,
    port: server.port,
    stop() {
      clearInterval(beat);
      for (const peer of hub.peers) ungate(hub, peer);
      server.stop(true);
    },
  };
}
