// Frame names, each kept once: as a string (for the Capture model) and as its UTF-8 bytes, packed
// end to end (for looking names up and writing them out without making a string per occurrence).
// A name is found again from its bytes through a HashIndex.
import { grow } from "./grow.ts";
import { HashIndex } from "./hash-index.ts";

/**
 * UTF-8 of a string, code unit by code unit: TextEncoder's bytes for well-formed text, and a
 * lone surrogate gets a 3-byte form of its own (TextEncoder would make every one U+FFFD, so
 * distinct names would meet as one key).
 */
function utf8(s: string): Uint8Array {
  const out = new Uint8Array(s.length * 3);
  let at = 0;
  for (let k = 0; k < s.length; k++) {
    let c = s.charCodeAt(k);
    if (c >= 0xd800 && c < 0xdc00 && k + 1 < s.length) {
      const lo = s.charCodeAt(k + 1);
      if (lo >= 0xdc00 && lo < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
        k++;
      }
    }
    if (c < 0x80) out[at++] = c;
    else if (c < 0x800) {
      out[at++] = 0xc0 | (c >> 6);
      out[at++] = 0x80 | (c & 0x3f);
    } else if (c < 0x10000) {
      out[at++] = 0xe0 | (c >> 12);
      out[at++] = 0x80 | ((c >> 6) & 0x3f);
      out[at++] = 0x80 | (c & 0x3f);
    } else {
      out[at++] = 0xf0 | (c >> 18);
      out[at++] = 0x80 | ((c >> 12) & 0x3f);
      out[at++] = 0x80 | ((c >> 6) & 0x3f);
      out[at++] = 0x80 | (c & 0x3f);
    }
  }
  return out.subarray(0, at);
}

const EMPTY_BYTES: Uint8Array = new Uint8Array(0);

export class NameTable {
  readonly names: string[] = [];
  private bytes = new Uint8Array(1 << 16);
  /** Name i is bytes[starts[i] .. starts[i + 1]). */
  private starts = new Float64Array(1 << 10);
  private readonly index = new HashIndex();
  /** The bytes being looked up, for `isProbe` (one closure made once, not one per lookup). */
  private readonly probe: { buf: Uint8Array; start: number; end: number } = { buf: EMPTY_BYTES, start: 0, end: 0 };
  private readonly isProbe = (i: number): boolean => this.equals(i, this.probe.buf, this.probe.start, this.probe.end);
  private readonly decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

  get size(): number {
    return this.names.length;
  }

  /** The id of the name whose UTF-8 is buf[start .. end) (valid UTF-8, or utf8() of `text`). */
  internBytes(buf: Uint8Array, start: number, end: number, text?: string): number {
    let h = 0x811c9dc5;
    for (let k = start; k < end; k++) h = Math.imul(h ^ buf[k]!, 0x01000193);
    h ^= h >>> 15;
    this.probe.buf = buf;
    this.probe.start = start;
    this.probe.end = end;
    const found = this.index.find(h, this.isProbe);
    this.probe.buf = EMPTY_BYTES; // not keeping the caller's buffer alive
    if (found >= 0) return found;
    const i = this.names.length;
    if (i + 2 > this.starts.length) this.starts = grow(this.starts, this.starts.length * 2);
    const from = this.starts[i]!;
    const len = end - start;
    if (from + len > this.bytes.length) this.bytes = grow(this.bytes, Math.max(this.bytes.length * 2, from + len));
    this.bytes.set(buf.subarray(start, end), from);
    this.starts[i + 1] = from + len;
    // A string of its own: a slice of a larger string would keep all of that alive.
    const decoded = this.decoder.decode(buf.subarray(start, end));
    // A copy of `text` (join makes a new string; a slice would share its parent's memory) when its
    // lone surrogates do not survive decoding.
    this.names.push(text === undefined || decoded === text ? decoded : Array.from(text).join(""));
    return this.index.add(h);
  }

  /** The id of a name given as text. */
  intern(name: string): number {
    const bytes = utf8(name);
    return this.internBytes(bytes, 0, bytes.length, name);
  }

  /** If name i's bytes are buf[start .. start + its length) within `end`: the position after them, else -1. */
  matchesAt(i: number, buf: Uint8Array, start: number, end: number): number {
    const from = this.starts[i]!;
    const len = this.starts[i + 1]! - from;
    if (start + len > end) return -1;
    for (let k = 0; k < len; k++) if (this.bytes[from + k] !== buf[start + k]) return -1;
    return start + len;
  }

  /** Copies name i's UTF-8 into out at `at`; returns the position after it. */
  copyTo(i: number, out: Uint8Array, at: number): number {
    const from = this.starts[i]!;
    const to = this.starts[i + 1]!;
    if (to - from > 64) out.set(this.bytes.subarray(from, to), at);
    else for (let k = from; k < to; k++) out[at + k - from] = this.bytes[k]!; // no view object per name
    return at + (to - from);
  }

  /** UTF-8 length of name i. */
  byteLength(i: number): number {
    return this.starts[i + 1]! - this.starts[i]!;
  }

  private equals(i: number, buf: Uint8Array, start: number, end: number): boolean {
    const from = this.starts[i]!;
    if (this.starts[i + 1]! - from !== end - start) return false;
    for (let k = 0; k < end - start; k++) if (this.bytes[from + k] !== buf[start + k]) return false;
    return true;
  }
}
