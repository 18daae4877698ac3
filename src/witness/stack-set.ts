// A set of distinct stacks of frame ids, packed: every stack's ids sit end to end in one growing
// Uint32Array, found again through a HashIndex (hash-index.ts). A distinct stack costs its ids
// (4 bytes a frame) plus 20 bytes, where a string key per stack cost its text and, being a slice
// of the decoded chunk it came from, kept that whole chunk alive too (a 44 MB folded file of
// mostly distinct stacks held the file's text several times over).
import { grow } from "./grow.ts";
import { HashIndex } from "./hash-index.ts";

export class StackSet {
  private ids = new Uint32Array(1 << 16);
  /** Stack i is ids[starts[i] .. starts[i + 1]). Float64: the ids of all stacks may pass 2^32. */
  private starts = new Float64Array(1 << 10);
  private readonly index = new HashIndex();

  /** Number of distinct stacks. */
  get size(): number {
    return this.index.size;
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
    return this.index.find(hash, matches);
  }

  /** Adds a stack find() did not find, under `hash`; returns its index. */
  add(frames: ArrayLike<number>, len: number, hash: number): number {
    const i = this.index.size;
    if (i + 2 > this.starts.length) this.starts = grow(this.starts, this.starts.length * 2);
    const start = this.starts[i]!;
    if (start + len > this.ids.length) this.ids = grow(this.ids, Math.max(this.ids.length * 2, start + len));
    for (let k = 0; k < len; k++) this.ids[start + k] = frames[k]!;
    this.starts[i + 1] = start + len;
    return this.index.add(hash);
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
}
