// The data behind a flame graph of one axis, sent to the browser as JSON: a tree of
// [name, afterShare, beforeShare, children] (each capture weighs the same: shares, not raw counts),
// pruned below 0.05% on both sides, the function-level changes for hover text, and the axis scale
// so the page can show absolute values beside shares. One capture on its own has no "before".
import type { Capture } from "../../witness/model.ts";
import type { Change } from "../../witness/diff.ts";
import { addStackShares, shareRoot, type ShareNode } from "../../witness/aggregate.ts";
import { axisScale, type AxisScale } from "./units.ts";

export type FlameNode = [name: string, after: number, before: number, children: FlameNode[]];
/** function → [relative change, interval low, interval high, flagged, confirmation, verdict, self|inclusive, adjusted p, noise floor] */
export type FlameChange = [number, number, number, boolean, string | null, string, "self" | "inclusive", number, number];

export interface FlameAxis {
  axis: string;
  unit: string;
  root: FlameNode;
  changes: Record<string, FlameChange>;
  captures: { before: number; after: number };
  scale: { before: AxisScale | null; after: AxisScale | null };
  /** "single": one capture (or one side) alone, no diff colours. */
  mode: "diff" | "single";
}

const PRUNE = 0.0005;

function freeze(b: ShareNode, nA: number, nB: number): FlameNode {
  const a = nA ? b.after / nA : 0;
  const be = nB ? b.before / nB : 0;
  const kids = [...b.children.values()]
    .filter((c) => (nA ? c.after / nA : 0) >= PRUNE || (nB ? c.before / nB : 0) >= PRUNE)
    .sort((x, y) => x.name.localeCompare(y.name))
    .map((c) => freeze(c, nA, nB));
  return [b.name, round(a), round(be), kids];
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

export function flameAxis(axis: string, unit: string, before: Capture[], after: Capture[], changes: Change[]): FlameAxis {
  const root = shareRoot();
  const nA = addStackShares(root, after, axis, "after");
  const nB = addStackShares(root, before, axis, "before");
  // A frame shows its function's inclusive change; when only the self change cleared the noise
  // floor (a leaf's cost), that one — so a flagged function is never painted as noise.
  const ch: Record<string, FlameChange> = {};
  for (const c of changes) {
    if (c.axis !== axis) continue;
    const have = ch[c.function];
    const better = !have || (c.flagged && !have[3]) || (c.flagged === have[3] && c.kind === "inclusive");
    if (better) ch[c.function] = [round(c.relative_change), round(c.interval[0]), round(c.interval[1]), c.flagged, c.confirmation, c.verdict, c.kind, c.adjusted_p, round(c.noise_floor)];
  }
  return {
    axis,
    unit,
    root: freeze(root, nA, nB),
    changes: ch,
    captures: { before: nB, after: nA },
    scale: { before: axisScale(axis, before), after: axisScale(axis, after) },
    mode: before.length ? "diff" : "single",
  };
}
