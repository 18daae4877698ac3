// Per-function totals of one axis: self (the function is the leaf) and inclusive (the function is
// anywhere on the stack, counted once per stack even when recursive).

import type { AxisProfile } from "./model.ts";

/** Totals keyed by a shared name→index map so several captures line up column for column. */
export function functionTotals(p: AxisProfile, index: Map<string, number>, names: string[]): { self: Map<number, number>; inclusive: Map<number, number>; total: number } {
  const fnOfFrame = p.frames.map((f) => {
    let i = index.get(f.name);
    if (i === undefined) {
      i = names.length;
      names.push(f.name);
      index.set(f.name, i);
    }
    return i;
  });
  const self = new Map<number, number>();
  const inclusive = new Map<number, number>();
  // Generation stamps dedupe recursive frames without allocating a Set per stack.
  const seen = new Map<number, number>();
  let total = 0;
  let gen = 0;
  for (const s of p.stacks) {
    if (s.frames.length === 0 || s.value <= 0) continue;
    gen++;
    total += s.value;
    const leaf = fnOfFrame[s.frames[s.frames.length - 1]!]!;
    self.set(leaf, (self.get(leaf) ?? 0) + s.value);
    for (const fr of s.frames) {
      const fn = fnOfFrame[fr]!;
      if (seen.get(fn) === gen) continue;
      seen.set(fn, gen);
      inclusive.set(fn, (inclusive.get(fn) ?? 0) + s.value);
    }
  }
  return { self, inclusive, total };
}
