// One tunnel connection over a raw TCP (or TLS) socket: the HTTP upgrade, then WebSocket frames
// read with the limit the owner sets for the connection's state, and writes queued while the
// socket is backpressured.
import type { Socket } from "bun";
import { readRequestHead } from "./http-upgrade.ts";
import { CLOSE, closePayload, encodeFrame, FrameError, FrameReader, OP } from "./ws-frames.ts";

export interface ConnectionEvents {
  /** The largest message the peer may send now, in bytes. */
  limit(): number;
  open(): void;
  message(text: string): void;
  /** The WebSocket was closed by either side, or the socket went away: once per connection. */
  closed(code: number, reason: string): void;
}

export class WsConnection {
  private state: "http" | "open" | "closing" | "closed" = "http";
  private head: Buffer[] = [];
  private readonly reader: FrameReader;
  private pending: Buffer[] = [];
  private closeCode = 1006;
  private closeReason = "";

  constructor(
    private readonly socket: Socket<unknown>,
    private readonly events: ConnectionEvents,
  ) {
    this.reader = new FrameReader(() => events.limit());
  }

  get isOpen(): boolean {
    return this.state === "open";
  }

  data(chunk: Buffer): void {
    try {
      if (this.state === "http") return this.readHead(chunk);
      if (this.state !== "open") return;
      for (const m of this.reader.push(chunk)) {
        if (this.state !== "open") return;
        if (m.kind === "text") this.events.message(m.text);
        else if (m.kind === "ping") this.write(encodeFrame(OP.pong, m.data));
        else if (m.kind === "close") return this.close(m.code === 1005 ? CLOSE.normal : m.code, m.reason, m.code);
      }
    } catch (err) {
      if (!(err instanceof FrameError)) throw err;
      this.close(err.code, err.message);
    }
  }

  private readHead(chunk: Buffer): void {
    this.head.push(chunk);
    const outcome = readRequestHead(this.head.length === 1 ? chunk : Buffer.concat(this.head));
    if (outcome.kind === "incomplete") return;
    this.head = [];
    if (outcome.kind === "answer") {
      this.write(Buffer.from(outcome.response, "latin1"));
      this.finish(1006, "not a WebSocket upgrade");
      return;
    }
    this.write(Buffer.from(outcome.response, "latin1"));
    this.state = "open";
    this.events.open();
    if (outcome.rest.length > 0 && this.state === "open") this.data(outcome.rest);
  }

  send(text: string): boolean {
    if (this.state !== "open") return false;
    this.write(encodeFrame(OP.text, Buffer.from(text, "utf8")));
    return true;
  }

  /** Sends a close frame, then ends the socket once everything queued is written. */
  close(code: number, reason: string, peerCode?: number): void {
    if (this.state === "closing" || this.state === "closed") return;
    if (this.state === "open") this.write(encodeFrame(OP.close, closePayload(code, reason)));
    this.finish(peerCode ?? code, reason);
  }

  /** Drops the socket at once (a peer that stopped answering). */
  terminate(code: number, reason: string): void {
    if (this.state === "closed") return;
    this.closeCode = code;
    this.closeReason = reason;
    this.pending = [];
    this.state = "closing";
    this.socket.terminate();
  }

  /** Bun's drain: the socket can take more of what is queued. */
  drain(): void {
    while (this.pending.length > 0) {
      const next = this.pending[0]!;
      const wrote = this.socket.write(next);
      if (wrote < next.length) {
        this.pending[0] = next.subarray(Math.max(0, wrote));
        return;
      }
      this.pending.shift();
    }
    if (this.state === "closing") this.socket.end();
  }

  /** Bun's close: the socket is gone. */
  gone(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.pending = [];
    this.events.closed(this.closeCode, this.closeReason);
  }

  private finish(code: number, reason: string): void {
    this.closeCode = code;
    this.closeReason = reason;
    this.state = "closing";
    if (this.pending.length === 0) this.socket.end();
  }

  private write(bytes: Buffer): void {
    if (this.pending.length > 0) {
      this.pending.push(bytes);
      return;
    }
    const wrote = this.socket.write(bytes);
    if (wrote < bytes.length) this.pending.push(bytes.subarray(Math.max(0, wrote)));
  }
}
