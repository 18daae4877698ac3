// Per-function totals of one axis: self (the function is the leaf) and inclusive (the function is
// anywhere on the stack, counted once per stack even when recursive).

import type { AxisProfile } from "./model.ts";

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
    let i = index.get(f.name);
    if (i === undefined) {
      i = names.length;
      names.push(f.name);
      index.set(f.name, i);
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
