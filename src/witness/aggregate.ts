// Per-function totals of one axis: self (the function is the leaf), inclusive (the function is
// anywhere on the stack, counted once per stack even when recursive) and own (the function owns the
// sample: the deepest interpreted frame when the stack has one, else the leaf).

import { functionIdentity } from "./identity.ts";
import { axisTotal, type AxisProfile, type Capture } from "./model.ts";

/** Frame kinds of interpreted code: the function's own work runs in the interpreter's native
 * functions beneath it, so it is never a stack's leaf. */
const INTERPRETED_KINDS = new Set(["python"]);

export const isInterpreted = (kind: string | undefined) => kind !== undefined && INTERPRETED_KINDS.has(kind);

export interface FunctionTotals {
  /** Indexed like `names` (the shared index); functions absent here are 0. */
  self: Float64Array;
  inclusive: Float64Array;
  /**
   * Where each sample's cost belongs: to the deepest interpreted frame when the stack has one (the
   * interpreter's C functions beneath it run that function's bytecode, and every Python function
   * shares them), else to the leaf. Every sample has exactly one owner, so own counts partition the
   * axis — the units the diff's normalisation and its cause analysis rest on.
   */
  own: Float64Array;
  total: number;
}

/** The frame index of a stack's owner (see FunctionTotals.own). */
export function ownerFrame(p: AxisProfile, frames: number[]): number {
  for (let k = frames.length - 1; k >= 0; k--) if (isInterpreted(p.frames[frames[k]!]!.kind)) return frames[k]!;
  return frames[frames.length - 1]!;
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
  const own = new Float64Array(n);
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
    own[fnOfFrame[ownerFrame(p, fr)]!]! += s.value;
    for (let k = 0; k < fr.length; k++) {
      const fn = fnOfFrame[fr[k]!]!;
      if (seen[fn] === gen) continue;
      seen[fn] = gen;
      inclusive[fn]! += s.value;
    }
  }
  return { self, inclusive, own, total };
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
