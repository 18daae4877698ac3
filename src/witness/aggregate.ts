// Per-function totals of one axis: self (the function is the leaf), inclusive (the function is
// anywhere on the stack, counted once per stack even when recursive) and own (the function owns the
// sample: the deepest interpreted frame, else the deepest frame of the program's own code).

import { functionIdentity, isPlaceholder } from "./identity.ts";
import { axisTotal, type AxisProfile, type Capture, type Frame } from "./model.ts";

/** Frame kinds of interpreted code: the function's own work runs in the interpreter's native
 * functions beneath it, so it is never a stack's leaf. */
const INTERPRETED_KINDS = new Set(["python"]);

export const isInterpreted = (kind: string | undefined) => kind !== undefined && INTERPRETED_KINDS.has(kind);

/** Code a program shares with every other program: the kernel, and shared libraries (libc's
 * memcpy, __lll_lock_wait …). Its samples belong to the program's own function that called it. */
const SHARED_LIBRARY = /\.so(\.\d+)*$/;
const SHARED_KINDS = new Set(["kernel", "syscall", "unknown"]);

/** 2: interpreted; 1: the program's own native code; 0: shared code or a placeholder. */
function ownership(f: Frame): number {
  if (isInterpreted(f.kind)) return 2;
  if ((f.kind && SHARED_KINDS.has(f.kind)) || (f.module && SHARED_LIBRARY.test(f.module)) || isPlaceholder(functionIdentity(f))) return 0;
  return 1;
}

const ownershipOf = new WeakMap<AxisProfile, Uint8Array>();

export interface FunctionTotals {
  /** Indexed like `names` (the shared index); functions absent here are 0. */
  self: Float64Array;
  inclusive: Float64Array;
  /**
   * Where each sample's cost belongs: to the deepest interpreted frame when the stack has one (the
   * interpreter's C functions beneath it run that function's bytecode, and every Python function
   * shares them), else to the deepest frame of the program's own code (a libc memcpy or a kernel
   * wait is the work of the function that called it), else to the leaf. Every sample has exactly
   * one owner, so own counts partition the axis — the units the diff's normalisation and its cause
   * analysis rest on.
   */
  own: Float64Array;
  total: number;
}

/**
 * The frame index of a stack's owner (see FunctionTotals.own): the deepest interpreted frame; else
 * the deepest frame of the program's own native code; else the leaf.
 */
export function ownerFrame(p: AxisProfile, frames: number[]): number {
  let cls = ownershipOf.get(p);
  if (!cls || cls.length !== p.frames.length) ownershipOf.set(p, (cls = Uint8Array.from(p.frames, ownership)));
  let native = -1;
  for (let k = frames.length - 1; k >= 0; k--) {
    const c = cls[frames[k]!]!;
    if (c === 2) return frames[k]!;
    if (c === 1 && native < 0) native = frames[k]!;
  }
  return native >= 0 ? native : frames[frames.length - 1]!;
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
