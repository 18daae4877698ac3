// Per-function totals of one axis: self (the function is the leaf) and inclusive (the function is
// anywhere on the stack, counted once per stack even when recursive).

import { functionIdentity } from "./identity.ts";
import { axisTotal, type AxisProfile, type Capture } from "./model.ts";

export interface FunctionTotals {
  /** Indexed like `names` (the shared index); functions absent here are 0. */
  self: Float64Array;
  inclusive: Float64Array;
  total: number;
}

/** Totals keyed by a shared name→index map so several captures line up column for column. */
export function functionTotals(p: AxisProfile, index: Map<string, number>, names: string[]): FunctionTotals {
  const fnOfFrame = new Int32Array(p.frames.length);
  p.frames.forEach((f, k) => {
    const id = functionIdentity(f);
    let i = index.get(id);
    if (i === undefined) {
      i = names.length;
      names.push(id);
      index.set(id, i);
    }
    fnOfFrame[k] = i;
  });
  const n = names.length;
  const self = new Float64Array(n);
  const inclusive = new Float64Array(n);
  // Generation stamps dedupe recursive frames without allocating a Set per stack.
  const seen = new Int32Array(n);
  let total = 0;
  let gen = 0;
  for (const s of p.stacks) {
    const fr = s.frames;
    if (fr.length === 0 || s.value <= 0) continue;
    gen++;
    total += s.value;
    self[fnOfFrame[fr[fr.length - 1]!]!]! += s.value;
    for (let k = 0; k < fr.length; k++) {
      const fn = fnOfFrame[fr[k]!]!;
      if (seen[fn] === gen) continue;
      seen[fn] = gen;
      inclusive[fn]! += s.value;
    }
  }
  return { self, inclusive, total };
}

/** A call tree of shares for the before and after sides of one axis (the flame graphs' data). */
export interface ShareNode {
  name: string;
  after: number;
  before: number;
  children: Map<string, ShareNode>;
}

export const shareRoot = (): ShareNode => ({ name: "all", after: 0, before: 0, children: new Map() });

/** Adds each capture's stacks of `axis` to `field` as shares of that capture's total, so captures
 * of different length weigh the same. Returns how many captures contributed. */
export function addStackShares(root: ShareNode, cs: Capture[], axis: string, field: "after" | "before"): number {
  let n = 0;
  for (const c of cs) {
    const p = c.axes[axis];
    if (!p) continue;
    const total = axisTotal(p);
    if (total <= 0) continue;
    n++;
    for (const s of p.stacks) {
      const v = s.value / total;
      let node = root;
      node[field] += v;
      for (const fi of s.frames) {
        const name = functionIdentity(p.frames[fi]!);
        let ch = node.children.get(name);
        if (!ch) node.children.set(name, (ch = { name, after: 0, before: 0, children: new Map() }));
        ch[field] += v;
        node = ch;
      }
    }
  }
  return n;
}
