// A WebSocket client written at the byte level, for tests that must send what a well-behaved
// client never would: a frame header announcing 20 MiB, a request head that never ends, pings
// instead of a hello. It reads the server's text and close frames.
import type { Socket } from "bun";

export interface RawTunnel {
  /** the server's text frames, in order */
  texts: string[];
  /** resolves when the connection ends: the close frame's code (null when the server sent none) and when */
  ended: Promise<{ code: number | null; reason: string; at: number }>;
  /** resolves once the server answered the upgrade (101) */
  upgraded: Promise<void>;
  write(bytes: Uint8Array): number;
  /** a masked client frame */
  frame(opcode: number, payload: Uint8Array): Uint8Array;
  end(): void;
}

export function clientFrame(opcode: number, payload: Uint8Array, announced = payload.length): Uint8Array {
  const len = announced;
  const lengthBytes = len < 126 ? 0 : len < 65536 ? 2 : 8;
  const out = Buffer.alloc(2 + lengthBytes + 4 + payload.length);
  out[0] = 0x80 | opcode;
  if (lengthBytes === 0) out[1] = 0x80 | len;
  else if (lengthBytes === 2) {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(len, 2);
  } else {
    out[1] = 0x80 | 127;
    out.writeBigUInt64BE(BigInt(len), 2);
  }
  const key = crypto.getRandomValues(new Uint8Array(4));
  out.set(key, 2 + lengthBytes);
  const body = 2 + lengthBytes + 4;
  for (let i = 0; i < payload.length; i++) out[body + i] = payload[i]! ^ key[i & 3]!;
  return out;
}

/** Connects to ws://HOST:PORT/tunnel and sends the upgrade (unless `head` replaces it). */
export async function rawTunnel(url: string, head?: string): Promise<RawTunnel> {
  const u = new URL(url);
  const ended = Promise.withResolvers<{ code: number | null; reason: string; at: number }>();
  const upgraded = Promise.withResolvers<void>();
  const texts: string[] = [];
  let buf = Buffer.alloc(0);
  let open = false;
  let closeFrame: { code: number; reason: string } | null = null;
  const read = (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    if (!open) {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      if (!buf.subarray(0, 12).toString().includes("101")) return;
      open = true;
      upgraded.resolve();
      buf = buf.subarray(end + 4);
    }
    while (buf.length >= 2) {
      const op = buf[0]! & 0x0f;
      let len = buf[1]! & 0x7f;
      let at = 2;
      if (len === 126) [len, at] = [buf.readUInt16BE(2), 4];
      else if (len === 127) [len, at] = [Number(buf.readBigUInt64BE(2)), 10];
      if (buf.length < at + len) return;
      const payload = buf.subarray(at, at + len);
      if (op === 1) texts.push(payload.toString());
      if (op === 8) closeFrame = { code: payload.readUInt16BE(0), reason: payload.subarray(2).toString() };
      buf = buf.subarray(at + len);
    }
  };
  const socket: Socket<undefined> = await Bun.connect({
    hostname: u.hostname,
    port: Number(u.port),
    socket: {
      data: (_s, chunk) => read(chunk),
      close: () => ended.resolve({ code: closeFrame?.code ?? null, reason: closeFrame?.reason ?? "", at: Date.now() }),
      error: () => ended.resolve({ code: closeFrame?.code ?? null, reason: closeFrame?.reason ?? "", at: Date.now() }),
    },
  });
  const key = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  socket.write(head ?? `GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  return {
    texts,
    ended: ended.promise,
    upgraded: upgraded.promise,
    write: (bytes) => socket.write(bytes),
    frame: clientFrame,
    end: () => socket.end(),
  };
}
