// The data behind a flame graph of one axis, sent to the browser as JSON: the call tree in
// pre-order as flat [name, afterShare, beforeShare, depth] rows (each capture weighs the same:
// shares, not raw counts), pruned below 0.05% on both sides, the function-level changes for hover
// text, and the axis scale so the page can show absolute values beside shares. One capture on its
// own has no "before". Flat, and built without recursion, because stacks can be 20,000 frames
// deep: a nested tree that deep overflows JSON.stringify here and JSON.parse there.
import { addStackShares, axisTotal, frameChanges, shareRoot, type AxisProfile, type Capture, type Change, type ShareNode } from "../../witness/index.ts";
import type { AxisScale } from "./units.ts";

/** An axis's scale on one side: its unit, mean total and measured seconds per capture (for absolute values). */
export function axisScale(axis: string, caps: Capture[]): AxisScale | null {
  const ps = caps.map((c) => c.axes[axis]).filter((p): p is AxisProfile => !!p);
  if (ps.length === 0) return null;
  const secs = caps.filter((c) => c.axes[axis]).map((c) => c.meta.measuredSec);
  const seconds = secs.every((s) => s !== undefined && s > 0) ? (secs as number[]).reduce((a, b) => a + b, 0) / secs.length : null;
  return { unit: ps[0]!.unit, total: ps.reduce((a, p) => a + axisTotal(p), 0) / ps.length, seconds, periodNs: ps[0]!.periodNs ?? null };
}

/** One node; its children are the rows after it one level deeper, up to the next row at its depth or above. */
export type FlameNode = [name: string, after: number, before: number, depth: number];
/** function → [relative change, interval low, interval high, flagged, confirmation, verdict, self|inclusive, adjusted p, noise floor] */
export type FlameChange = [number, number, number, boolean, string | null, string, "self" | "inclusive", number, number];

export interface FlameAxis {
  axis: string;
  unit: string;
  /** Pre-order, the root ("all") first at depth 0; children sorted by name. */
  nodes: FlameNode[];
  changes: Record<string, FlameChange>;
  captures: { before: number; after: number };
  scale: { before: AxisScale | null; after: AxisScale | null };
  /** "single": one capture (or one side) alone, no diff colours. */
  mode: "diff" | "single";
}

const PRUNE = 0.0005;

function flatten(root: ShareNode, nA: number, nB: number): FlameNode[] {
  const out: FlameNode[] = [];
  const todo: Array<[ShareNode, number]> = [[root, 0]];
  while (todo.length) {
    const [b, depth] = todo.pop()!;
    out.push([b.name, round(nA ? b.after / nA : 0), round(nB ? b.before / nB : 0), depth]);
    const kids = [...b.children.values()]
      .filter((c) => (nA ? c.after / nA : 0) >= PRUNE || (nB ? c.before / nB : 0) >= PRUNE)
      .sort((x, y) => y.name.localeCompare(x.name)); // reversed: the stack pops them in name order
    for (const k of kids) todo.push([k, depth + 1]);
  }
  return out;
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export function flameAxis(axis: string, unit: string, before: Capture[], after: Capture[], changes: Change[]): FlameAxis {
  const root = shareRoot();
  const nA = addStackShares(root, after, axis, "after");
  const nB = addStackShares(root, before, axis, "before");
  const ch: Record<string, FlameChange> = {};
  for (const [fn, c] of frameChanges(changes, axis))
    ch[fn] = [round(c.relative_change), round(c.interval[0]), round(c.interval[1]), c.flagged, c.confirmation, c.verdict, c.kind, c.adjusted_p, round(c.noise_floor)];
  return {
    axis,
    unit,
    nodes: flatten(root, nA, nB),
    changes: ch,
    captures: { before: nB, after: nA },
    scale: { before: axisScale(axis, before), after: axisScale(axis, after) },
    mode: before.length ? "diff" : "single",
  };
}
