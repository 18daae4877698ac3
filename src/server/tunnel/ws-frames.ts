// The WebSocket wire format (RFC 6455 §5) as the tunnel's server end reads and writes it.
//
// Why not Bun.serve's WebSocket: it has one maxPayloadLength per server, so a socket that has not
// said hello could have a whole result-sized frame (171 MiB) buffered before any handler runs. Here
// the length in a frame's header is checked against the limit of the socket's current state before
// one byte of its payload is kept, and that limit changes when the socket is welcomed.
//
// No extension is ever negotiated, so the RSV bits must be 0; frames from a client must be masked.

export const OP = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** Close codes of RFC 6455 §7.4.1 the reader answers with. */
export const CLOSE = { normal: 1000, protocolError: 1002, unsupported: 1003, tooBig: 1009 } as const;

export class FrameError extends Error {
  constructor(
    readonly code: number,
    reason: string,
  ) {
    super(reason);
  }
}

export type Incoming = { kind: "text"; text: string } | { kind: "ping"; data: Buffer } | { kind: "pong" } | { kind: "close"; code: number; reason: string };

interface Header {
  fin: boolean;
  opcode: number;
  headerBytes: number;
  length: number;
}

/**
 * Reads frames out of the byte stream of one connection. `limit()` is asked for the largest
 * message the socket may send now; a frame announcing more (counting fragments already read) throws
 * FrameError(1009) while only its header has been read.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** the fragments of a text message not yet finished */
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;

  constructor(private readonly limit: () => number) {}

  push(data: Buffer): Incoming[] {
    this.chunks.push(data);
    this.buffered += data.length;
    const out: Incoming[] = [];
    for (;;) {
      const header = this.header();
      if (!header || this.buffered < header.headerBytes + header.length) return out;
      const frame = this.take(header.headerBytes + header.length);
      const payload = unmask(frame.subarray(header.headerBytes - 4, header.headerBytes), frame.subarray(header.headerBytes));
      const message = this.frame(header, payload);
      if (message) out.push(message);
    }
  }

  /** The next frame's header once it is all buffered, checked against the limits; null until then. */
  private header(): Header | null {
    if (this.buffered < 2) return null;
    const head = this.peek(Math.min(this.buffered, 14));
    const b0 = head[0]!;
    const b1 = head[1]!;
    if (b0 & 0x70) throw new FrameError(CLOSE.protocolError, "reserved bits set: no extension was negotiated");
    if (!(b1 & 0x80)) throw new FrameError(CLOSE.protocolError, "frames from a client must be masked");
    const opcode = b0 & 0x0f;
    const short = b1 & 0x7f;
    const lengthBytes = short === 126 ? 2 : short === 127 ? 8 : 0;
    const headerBytes = 2 + lengthBytes + 4;
    if (head.length < 2 + lengthBytes) return null;
    let length = short;
    if (short === 126) length = head.readUInt16BE(2);
    else if (short === 127) {
      const big = head.readBigUInt64BE(2);
      length = big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
    }
    if (opcode >= OP.close) {
      if (!(b0 & 0x80) || length > 125) throw new FrameError(CLOSE.protocolError, "control frames must be whole and at most 125 bytes");
    } else {
      const limit = this.limit();
      if (this.fragmentBytes + length > limit) throw new FrameError(CLOSE.tooBig, `a message of more than ${limit} bytes is not accepted here`);
    }
    return { fin: (b0 & 0x80) !== 0, opcode, headerBytes, length };
  }

  private frame(h: Header, payload: Buffer): Incoming | null {
    switch (h.opcode) {
      case OP.ping:
        return { kind: "ping", data: payload };
      case OP.pong:
        return { kind: "pong" };
      case OP.close:
        return { kind: "close", code: payload.length >= 2 ? payload.readUInt16BE(0) : 1005, reason: payload.subarray(2).toString("utf8") };
      case OP.text:
      case OP.continuation:
        if ((h.opcode === OP.text) === this.fragments.length > 0) throw new FrameError(CLOSE.protocolError, "continuation frame out of order");
        this.fragments.push(payload);
        this.fragmentBytes += payload.length;
        if (!h.fin) return null;
        const text = decodeUtf8(this.fragments.length === 1 ? this.fragments[0]! : Buffer.concat(this.fragments));
        this.fragments = [];
        this.fragmentBytes = 0;
        return { kind: "text", text };
      case OP.binary:
        throw new FrameError(CLOSE.unsupported, "the tunnel carries JSON text frames only");
      default:
        throw new FrameError(CLOSE.protocolError, `unknown opcode ${h.opcode}`);
    }
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length >= n) return this.chunks[0]!;
    this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!;
  }

  private take(n: number): Buffer {
    const all = this.peek(n);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.buffered -= n;
    return all.subarray(0, n);
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
function decodeUtf8(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new FrameError(1007, "a text frame that is not UTF-8");
  }
}

/** XORs the payload with the 4-byte key in place, a word at a time where it can. */
function unmask(key: Buffer, payload: Buffer): Buffer {
  const words = payload.length >>> 2;
  if (words > 0 && payload.byteOffset % 4 === 0) {
    const k = key.readUInt32LE(0);
    const view = new Uint32Array(payload.buffer, payload.byteOffset, words);
    for (let i = 0; i < words; i++) view[i]! ^= k;
    for (let i = words << 2; i < payload.length; i++) payload[i]! ^= key[i & 3]!;
  } else {
    for (let i = 0; i < payload.length; i++) payload[i]! ^= key[i & 3]!;
  }
  return payload;
}

/** A server frame (never masked) with FIN set. */
export function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const lengthBytes = n < 126 ? 0 : n < 65536 ? 2 : 8;
  const out = Buffer.allocUnsafe(2 + lengthBytes + n);
  out[0] = 0x80 | opcode;
  if (lengthBytes === 0) out[1] = n;
  else if (lengthBytes === 2) {
    out[1] = 126;
    out.writeUInt16BE(n, 2);
  } else {
    out[1] = 127;
    out.writeBigUInt64BE(BigInt(n), 2);
  }
  payload.copy(out, 2 + lengthBytes);
  return out;
}

export function closePayload(code: number, reason: string): Buffer {
  // A close frame's payload is at most 125 bytes: 2 for the code, the reason cut to fit.
  const why = Buffer.from(reason, "utf8").subarray(0, 123);
  const out = Buffer.allocUnsafe(2 + why.length);
  out.writeUInt16BE(code, 0);
  why.copy(out, 2);
  return out;
}
