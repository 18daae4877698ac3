// A set of distinct stacks of frame ids, packed: every stack's ids sit end to end in one growing
// Uint32Array, found again through an open-addressing hash table. A distinct stack costs its ids
// (4 bytes a frame) plus 20 bytes, where a string key per stack cost its text and, being a slice
// of the decoded chunk it came from, kept that whole chunk alive too (a 44 MB folded file of
// mostly distinct stacks held the file's text several times over).

const EMPTY = -1;

export class StackSet {
  private ids = new Uint32Array(1 << 16);
  /** Stack i is ids[starts[i] .. starts[i + 1]). Float64: the ids of all stacks may pass 2^32. */
  private starts = new Float64Array(1 << 10);
  private hashes = new Int32Array(1 << 10);
  private table = new Int32Array(1 << 11).fill(EMPTY);
  private n = 0;

  /** Number of distinct stacks. */
  get size(): number {
    return this.n;
  }

  /** The index of stack `frames[0 .. len)`, added at index `size` if it was not there. */
  intern(frames: ArrayLike<number>, len = frames.length): number {
    let h = 0x811c9dc5 ^ len;
    for (let k = 0; k < len; k++) {
      h = Math.imul(h ^ frames[k]!, 0x9e3779b1);
      h ^= h >>> 15;
    }
    const at = this.find(h, (i) => this.equals(i, frames, len));
    return at >= 0 ? at : this.add(frames, len, h);
  }

  /**
   * The stack stored with `hash` for which `matches` holds, or -1. A caller that identifies stacks
   * by something else than their ids (folded text) hashes that, and adds with the same hash.
   */
  find(hash: number, matches: (i: number) => boolean): number {
    const mask = this.table.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = this.table[slot]!;
      if (at === EMPTY) return -1;
      if (this.hashes[at] === hash && matches(at)) return at;
    }
  }

  /** Adds a stack find() did not find, under `hash`; returns its index. */
  add(frames: ArrayLike<number>, len: number, hash: number): number {
    const i = this.n;
    if (i + 2 > this.starts.length) {
      this.starts = grow(this.starts, this.starts.length * 2);
      this.hashes = grow(this.hashes, this.hashes.length * 2);
    }
    const start = this.starts[i]!;
    if (start + len > this.ids.length) this.ids = grow(this.ids, Math.max(this.ids.length * 2, start + len));
    for (let k = 0; k < len; k++) this.ids[start + k] = frames[k]!;
    this.starts[i + 1] = start + len;
    this.hashes[i] = hash;
    this.n = i + 1;
    // Load factor at most 1/2 keeps probes short.
    if (this.n * 2 > this.table.length) this.rehash(this.table.length * 2);
    else this.place(i);
    return i;
  }

  /** How many frames stack i has. */
  length(i: number): number {
    return this.starts[i + 1]! - this.starts[i]!;
  }

  /** Frame k of stack i (root first). */
  frame(i: number, k: number): number {
    return this.ids[this.starts[i]! + k]!;
  }

  /** Stack i's ids as a plain array (for the Capture model). */
  toArray(i: number): number[] {
    const start = this.starts[i]!;
    const len = this.starts[i + 1]! - start;
    const out = new Array<number>(len);
    for (let k = 0; k < len; k++) out[k] = this.ids[start + k]!;
    return out;
  }

  private equals(at: number, frames: ArrayLike<number>, len: number): boolean {
    const start = this.starts[at]!;
    if (this.starts[at + 1]! - start !== len) return false;
    for (let k = 0; k < len; k++) if (this.ids[start + k] !== frames[k]) return false;
    return true;
  }

  private place(i: number): void {
    const mask = this.table.length - 1;
    let slot = this.hashes[i]! & mask;
    while (this.table[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.table[slot] = i;
  }

  private rehash(size: number): void {
    this.table = new Int32Array(size).fill(EMPTY);
    for (let i = 0; i < this.n; i++) this.place(i);
  }
}

/** A copy of `a` with room for `size` elements. */
export function grow<T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}
