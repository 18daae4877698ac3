// The Profiler's end of the tunnel: one outbound wss:// connection to the control plane, kept up
// for the life of the supervisor. Proves its identity by signing the server's challenge; sends
// heartbeats and drops a server that has been silent for HEARTBEAT_DEAD_MS; reconnects with capped
// exponential backoff and jitter. No credential appears in the URL or in any log line.

import { Value } from "@sinclair/typebox/value";
import type { Logger } from "../log.ts";
import {
  HEARTBEAT_DEAD_MS,
  HEARTBEAT_INTERVAL_MS,
  handshakeMessage,
  HELLO_RUNNING_MAX,
  ServerMessage,
  type ProfilerMessage,
} from "../protocol/tunnel.ts";
import { backoffDelayMs } from "./backoff.ts";

export interface TunnelIdentity {
  tenant: string;
  instanceId: string;
  sign(message: Uint8Array): Uint8Array;
}

export interface TunnelClientOptions {
  url: string;
  identity: TunnelIdentity;
  ca?: string[];
  logger: Logger;
  /** ids of captures still running here, announced after a reconnect. */
  running: () => string[];
  onMessage: (msg: ServerMessage) => void;
  onUp?: () => void;
  onDown?: () => void;
}

export class TunnelClient {
  private ws: WebSocket | null = null;
  private welcomed = false;
  private stopped = false;
  private attempt = 0;
  private lastHeard = 0;
  private heartbeat: ReturnType<typeof setInterval> | null = null;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly opts: TunnelClientOptions) {}

  get isUp(): boolean {
    return this.welcomed && this.ws?.readyState === WebSocket.OPEN;
  }

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.teardown(1000, "supervisor stopping");
  }

  send(msg: ProfilerMessage): boolean {
    if (!this.isUp || !this.ws) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  private connect(): void {
    const { url, ca, logger } = this.opts;
    this.reconnectTimer = null;
    logger.debug({ url, attempt: this.attempt }, "tunnel connecting");
    const ws = new WebSocket(url, ca ? ({ tls: { ca } } as unknown as string[]) : undefined);
    this.ws = ws;
    this.welcomed = false;
    ws.onopen = () => {
      this.lastHeard = Date.now();
      this.heartbeat = setInterval(() => this.beat(), HEARTBEAT_INTERVAL_MS);
    };
    ws.onmessage = (ev) => this.receive(String(ev.data));
    ws.onerror = () => {
      // The close event follows with the code; logging here would only duplicate it.
    };
    ws.onclose = (ev) => this.closed(ev.code, ev.reason);
  }

  private closed(code: number, reason: string): void {
    const wasUp = this.welcomed;
    this.clearHeartbeat();
    this.ws = null;
    this.welcomed = false;
    if (wasUp) this.opts.onDown?.();
    if (this.stopped) return;
    const delay = backoffDelayMs(this.attempt++);
    this.opts.logger.warn({ code, reason: reason || undefined, retry_in_ms: delay }, "tunnel closed; reconnecting");
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private receive(data: string): void {
    this.lastHeard = Date.now();
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      this.opts.logger.warn("tunnel: ignoring a frame that is not JSON");
      return;
    }
    if (!Value.Check(ServerMessage, parsed)) {
      this.opts.logger.warn({ type: (parsed as { type?: unknown })?.type }, "tunnel: ignoring an unknown message");
      return;
    }
    const msg = parsed;
    if (msg.type === "challenge") {
      const { tenant, instanceId, sign } = this.opts.identity;
      const signature = Buffer.from(sign(handshakeMessage(msg.challenge, tenant, instanceId))).toString("base64");
      this.ws?.send(JSON.stringify({ type: "hello", tenant, instance_id: instanceId, signature, running: this.opts.running().slice(0, HELLO_RUNNING_MAX) } satisfies ProfilerMessage));
      return;
    }
    if (msg.type === "welcome") {
      this.welcomed = true;
      this.attempt = 0;
      this.opts.logger.info({ instance_id: msg.instance_id }, "tunnel up");
      this.opts.onUp?.();
      return;
    }
    if (msg.type === "heartbeat") return;
    this.opts.onMessage(msg);
  }

  private beat(): void {
    if (Date.now() - this.lastHeard > HEARTBEAT_DEAD_MS) {
      this.opts.logger.warn({ silent_ms: Date.now() - this.lastHeard }, "tunnel: control plane silent; dropping the connection");
      // A dead TCP peer may never complete a close handshake: detach and reconnect right away.
      const dead = this.ws;
      if (dead) dead.onclose = null;
      this.teardown(4000, "heartbeat timeout");
      this.closed(4000, "heartbeat timeout");
      return;
    }
    this.ws?.send(JSON.stringify({ type: "heartbeat", at: Date.now() } satisfies ProfilerMessage));
  }

  private clearHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private teardown(code: number, reason: string): void {
    this.clearHeartbeat();
    try {
      this.ws?.close(code, reason);
    } catch {
      // already closed
    }
  }
}
