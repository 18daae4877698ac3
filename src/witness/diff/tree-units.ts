// The units the diff's normalisation counts unchanged work in: call-tree paths, not leaf functions.
//
// Each sample belongs to one owner (aggregate.ts, ownerFrame: the deepest interpreted frame, else the
// leaf), and a unit is the call path from the root to that owner. In an interpreter every Python
// function's self time sits in the same few C leaves (_PyEval_EvalFrameDefault, long_mul …), so a
// leaf's count is a mixture of every function's work and moves with the mixture; a path names the
// work itself, and when one function grows only the paths through it move. The same holds for a
// native memcpy called from everywhere: memcpy under apply_discounts is another unit than memcpy
// under price_cart.
//
// A path with too few counts to give a ratio (fewer than MIN_UNIT_COUNT in some capture) is folded
// into its caller's unit, bottom up, so the units partition the axis and none is all noise.

import { functionIdentity } from "../identity.ts";
import { ownerFrame } from "../aggregate.ts";
import type { AxisProfile } from "../model.ts";

export const MIN_UNIT_COUNT = 5;

/**
 * Per unit, its count in every capture (in the axis's counting quanta). `index` maps a function
 * identity to its number (every frame of these profiles is in it: the matrix built it).
 */
export interface TreeUnit {
  /** Count per capture. */
  y: Float64Array;
  /** The functions on the unit's call path, root to owner. */
  path: Int32Array;
}

export function treeUnits(profiles: AxisProfile[], index: Map<string, number>, quanta: number[]): TreeUnit[] {
  const n = profiles.length;
  const F = index.size + 1;
  // Node ids: 0 is the root; a child is found by node × F + function (exact below 2^53).
  const child = new Map<number, number>();
  const parent: number[] = [-1];
  const fnOf: number[] = [-1];
  let counts = new Float64Array(64 * n);
  profiles.forEach((p, c) => {
    const ids = p.frames.map((f) => index.get(functionIdentity(f))!);
    for (const s of p.stacks) {
      if (s.frames.length === 0 || s.value <= 0) continue;
      const owner = ownerFrame(p, s.frames);
      let node = 0;
      for (const f of s.frames) {
        const key = node * F + ids[f]!;
        let next = child.get(key);
        if (next === undefined) {
          next = parent.length;
          child.set(key, next);
          parent.push(node);
          fnOf.push(ids[f]!);
          if ((next + 1) * n > counts.length) {
            const grown = new Float64Array(counts.length * 2);
            grown.set(counts);
            counts = grown;
          }
        }
        node = next;
        if (f === owner) break;
      }
      counts[node * n + c]! += s.value / quanta[c]!;
    }
  });
  // Children are created after their parents: folding in descending order reaches every node once,
  // with its own small descendants already in it.
  const units: TreeUnit[] = [];
  const pathOf = (node: number) => {
    const fs: number[] = [];
    for (let k = node; k > 0; k = parent[k]!) fs.push(fnOf[k]!);
    return Int32Array.from(fs.reverse());
  };
  for (let node = parent.length - 1; node >= 0; node--) {
    const y = counts.subarray(node * n, node * n + n);
    if (node > 0 && y.some((v) => v < MIN_UNIT_COUNT)) {
      const up = parent[node]! * n;
      for (let c = 0; c < n; c++) counts[up + c]! += y[c]!;
    } else if (y.some((v) => v > 0)) units.push({ y: Float64Array.from(y), path: pathOf(node) });
  }
  return units;
}
