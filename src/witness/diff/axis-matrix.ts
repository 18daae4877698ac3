// Stage 1 of the diff: per axis, the self and inclusive count of every function in every capture
// (one name index across captures), and the hypotheses worth a test.

import type { Capture } from "../model.ts";
import { functionTotals, isInterpreted } from "../aggregate.ts";
import { functionIdentity, isPlaceholder } from "../identity.ts";
import { treeUnits, type TreeUnit } from "./tree-units.ts";

/** ptop's alloc axis: one stack per this many bytes on average (native/ptop/src/collector/probes/alloc.h). */
export const ALLOC_SAMPLE_PERIOD = 512 * 1024;

/**
 * Counting quantum per unit: ns axes are counted in 1 ms units so the Poisson term is not ~0.
 * ptop's alloc axis is sampled, one stack per ALLOC_SAMPLE_PERIOD bytes at exponential intervals,
 * each credited with an exponential gap (mean T, second moment 2T²): a stack's bytes over n samples
 * have variance 2T × their mean, so counting in 2T units makes them Poisson-like, as the other axes'.
 */
export function countingQuantum(unit: string, axis?: string): number {
  if (axis === "alloc" && unit === "bytes") return 2 * ALLOC_SAMPLE_PERIOD;
  return unit === "nanoseconds" ? 1e6 : unit === "bytes" ? 1024 : 1;
}

export function captureLabel(c: Capture, side: string, i: number): string {
  return c.meta.name ?? `${side}[${i}]`;
}

/** Every axis any capture has or says it is missing, in name order. */
export function axesOf(captures: Capture[]): string[] {
  const all = new Set<string>();
  for (const c of captures) {
    for (const a of Object.keys(c.axes)) all.add(a);
    for (const m of c.missing) all.add(m.axis);
  }
  return [...all].sort();
}

export interface AxisMatrix {
  axis: string;
  unit: string;
  /** The captures of each side that have this axis (heads always do). */
  before: Capture[];
  after: Capture[];
  /** Replicates left out because they lack the axis. */
  excluded: { capture: string; reason: string }[];
  names: string[];
  /** Per name: the function is interpreted code (its own cost is its inclusive count). */
  interpreted: boolean[];
  /** [function][capture] counts in counting quanta; captures are before then after. */
  self: Float64Array[];
  inclusive: Float64Array[];
  /** The samples each function owns (aggregate.ts): they partition the axis. */
  own: Float64Array[];
  /** Call-tree units the normalisation counts unchanged work in (tree-units.ts). */
  units: TreeUnit[];
  /** Axis total per capture, in counting quanta. */
  totals: number[];
  seconds: (number | undefined)[];
  quantum: number;
  /** Per capture, the quantum its counts are in: the axis's, times the samples one kept sample stands
   *  for where ptop's budget thinned the capture (summary.sample_weight), so that its Poisson term is
   *  that of the samples taken, not of their weighted values. */
  quanta: number[];
  /** Column indices of each side in the matrices. */
  cols: { before: number[]; after: number[] };
}

export type AxisOutcome = { matrix: AxisMatrix } | { notCompared: { axis: string; reason: string } };

function absence(axis: string, c: Capture, side: string, i: number): string {
  const m = c.missing.find((x) => x.axis === axis);
  return `absent from ${side} ${i === 0 ? "head" : "replicate"} ${captureLabel(c, side, i)}${m ? `: ${m.reason}` : ""}`;
}

/** The count matrices of one axis, or why the axis cannot be compared (a head lacks it, a capture has no samples). */
export function buildAxisMatrix(input: { before: Capture[]; after: Capture[] }, axis: string): AxisOutcome {
  const headB = input.before[0]!;
  const headA = input.after[0]!;
  if (!headB.axes[axis] || !headA.axes[axis]) {
    const reasons = [];
    if (!headB.axes[axis]) reasons.push(absence(axis, headB, "before", 0));
    if (!headA.axes[axis]) reasons.push(absence(axis, headA, "after", 0));
    return { notCompared: { axis, reason: reasons.join("; ") } };
  }
  const excluded: { capture: string; reason: string }[] = [];
  const withAxis = (cs: Capture[], side: string) =>
    cs.filter((c, i) => {
      if (c.axes[axis]) return true;
      excluded.push({ capture: captureLabel(c, side, i), reason: absence(axis, c, side, i) });
      return false;
    });
  const before = withAxis(input.before, "before");
  const after = withAxis(input.after, "after");
  const caps = [...before, ...after];
  const captureCount = caps.length;
  const unit = headB.axes[axis]!.unit;
  const quantum = countingQuantum(unit, axis);

  const index = new Map<string, number>();
  const names: string[] = [];
  const quanta = caps.map((c) => quantum * Math.max(1, c.meta.sampleWeight?.[axis] ?? 1));
  const perCapture = caps.map((c) => functionTotals(c.axes[axis]!, index, names));
  const self = Array.from({ length: names.length }, () => new Float64Array(captureCount));
  const inclusive = Array.from({ length: names.length }, () => new Float64Array(captureCount));
  const own = Array.from({ length: names.length }, () => new Float64Array(captureCount));
  perCapture.forEach((t, c) => {
    for (let f = 0; f < t.self.length; f++) {
      if (t.self[f]) self[f]![c] = t.self[f]! / quanta[c]!;
      if (t.inclusive[f]) inclusive[f]![c] = t.inclusive[f]! / quanta[c]!;
      if (t.own[f]) own[f]![c] = t.own[f]! / quanta[c]!;
    }
  });
  const totals = perCapture.map((t, c) => t.total / quanta[c]!);
  const interpreted = names.map(() => false);
  for (const c of caps) for (const f of c.axes[axis]!.frames) if (isInterpreted(f.kind)) interpreted[index.get(functionIdentity(f))!] = true;
  const empty = caps.findIndex((_, c) => !(totals[c]! > 0));
  if (empty >= 0) {
    const isBefore = empty < before.length;
    const label = captureLabel(caps[empty]!, isBefore ? "before" : "after", isBefore ? empty : empty - before.length);
    return { notCompared: { axis, reason: `capture ${label} has no samples on this axis` } };
  }
  return {
    matrix: {
      axis,
      unit,
      before,
      after,
      excluded,
      names,
      interpreted,
      self,
      inclusive,
      own,
      units: treeUnits(
        caps.map((c) => c.axes[axis]!),
        index,
        quanta,
      ),
      totals,
      seconds: caps.map((c) => c.meta.measuredSec),
      quantum,
      quanta,
      cols: { before: before.map((_, i) => i), after: after.map((_, i) => before.length + i) },
    },
  };
}

export interface Hypothesis {
  fn: number;
  kind: "self" | "inclusive";
  y: Float64Array;
  /** Index into the distinct count vectors: identical vectors are one test. */
  key: number;
  /** The function's own count (it owns these samples), not an aggregate that happens to equal one. */
  own: boolean;
}

export interface TestSet {
  hyps: Hypothesis[];
  distinct: Float64Array[];
  /** Distinct vectors that are some function's own cost (AxisMatrix.own: a native leaf's self count
   * where no interpreted frame is above it, an interpreted function's own bytecode time): the
   * primary ("self") Holm family, and the dispersion pool's atoms. Every other vector — an
   * inclusive aggregate, a native leaf shared by interpreted callers — is an aggregate of them. */
  ownKeys: Set<number>;
  /** Functions whose inclusive count is below the testing floor. */
  untested: number;
  /** Σ over captures of the axis total, in counting quanta: a test's pooled share is Σy / this. */
  sumT: number;
}

const sameCounts = (a: Float64Array, b: Float64Array) => a.every((v, i) => v === b[i]);

/**
 * Every function's self and inclusive count vector above the testing floor (a pooled share of
 * minShare and a mean of minCount per capture). Identical vectors (a leaf's self = inclusive, a
 * chain of single callers) are one test. A function's self test is its own count when it owns
 * samples (aggregate.ts): an interpreted function is never a leaf, its bytecode runs in the
 * interpreter's C functions beneath it, and a native one's own work includes the shared code (libc,
 * the kernel) it calls. Shared code owns nothing; its self count is an aggregate of its callers'.
 */
export function selectHypotheses(m: AxisMatrix, floor: { minShare: number; minCount: number }): TestSet {
  const captureCount = m.totals.length;
  const sumT = m.totals.reduce((a, b) => a + b, 0);
  const hyps: Hypothesis[] = [];
  const keyOf = new Map<string, number>();
  const distinct: Float64Array[] = [];
  let untested = 0;
  const ownKeys = new Set<number>();
  for (let f = 0; f < m.names.length; f++) {
    if (isPlaceholder(m.names[f]!)) continue;
    const own = m.own[f]!;
    const owns = own.some((v) => v > 0);
    for (const [kind, y] of [["self", owns ? own : m.self[f]!], ["inclusive", m.inclusive[f]!]] as const) {
      let s = 0;
      for (let c = 0; c < captureCount; c++) s += y[c]!;
      if (s === 0 && kind === "self") continue;
      if (s / sumT < floor.minShare || s / captureCount < floor.minCount) {
        if (kind === "inclusive") untested++;
        continue;
      }
      const k = Array.prototype.join.call(y, ",");
      let key = keyOf.get(k);
      if (key === undefined) {
        key = distinct.length;
        distinct.push(y);
        keyOf.set(k, key);
      }
      const ownVector = owns && sameCounts(y, own);
      hyps.push({ fn: f, kind, y, key, own: kind === "self" && ownVector });
      if (ownVector) ownKeys.add(key);
    }
  }
  return { hyps, distinct, ownKeys, untested, sumT };
}
