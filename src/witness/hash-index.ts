// The open-addressing hash index shared by NameTable (names found by their UTF-8) and StackSet
// (stacks found by their frame ids). It maps a 32-bit hash to entry numbers 0, 1, 2, ... in the
// order they were added; the caller stores the entries themselves and says, through `matches`,
// whether entry i is the key it looks for. Linear probing, load factor at most 1/2 keeps probes short.
import { grow } from "./grow.ts";

const EMPTY = -1;

export class HashIndex {
  /** Entry i's hash: compared before `matches`, and used to place it again on rehash. */
  private hashes = new Int32Array(1 << 10);
  private table = new Int32Array(1 << 11).fill(EMPTY);
  private n = 0;

  /** Number of entries. */
  get size(): number {
    return this.n;
  }

  /** The entry added under `hash` for which `matches` holds, or -1. */
  find(hash: number, matches: (i: number) => boolean): number {
    const mask = this.table.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = this.table[slot]!;
      if (at === EMPTY) return -1;
      if (this.hashes[at] === hash && matches(at)) return at;
    }
  }

  /** Adds entry number `size` under `hash` (for a key find() did not find); returns that number. */
  add(hash: number): number {
    const i = this.n;
    if (i === this.hashes.length) this.hashes = grow(this.hashes, i * 2);
    this.hashes[i] = hash;
    this.n = i + 1;
    if (this.n * 2 > this.table.length) this.rehash(this.table.length * 2);
    else this.place(i);
    return i;
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
