// A frame's words (hover, focus, screen readers) and its fill: the change's sentence and colour
// from witness/palette.ts (shared with the standalone diff.html), absolute values from the pages'
// own units.ts, both bundled in.
import { changeColour, changeSentence, NOT_TESTED, ROOT_FRAME } from "../../../../witness/palette.ts";
import type { FlameChange } from "../../flame-data.ts";
import { absolute } from "../../units.ts";
import type { FlameData, TreeNode } from "./flame-types.ts";

/** The sentence of a change as the flame data carries it (flame-data.ts FlameChange). */
const sentence = (c: FlameChange): string =>
  changeSentence({ relative_change: c[0], interval: [c[1], c[2]], flagged: c[3], confirmation: c[4], verdict: c[5], kind: c[6], adjusted_p: c[7], noise_floor: c[8] });

export const share = (x: number): string => `${(x * 100).toFixed(2)}%`;

/** The tree from the flat pre-order rows, once per data set; no recursion (stacks can be 20,000 frames deep). */
export function tree(data: FlameData): TreeNode {
  if (data.root) return data.root;
  const open: TreeNode[] = [];
  for (const [name, after, before, depth] of data.nodes ?? []) {
    const n: TreeNode = [name, after, before, [], null];
    open.length = depth;
    if (depth > 0) {
      n[4] = open[depth - 1] ?? null;
      n[4]?.[3].push(n);
    } else data.root = n;
    open.push(n);
  }
  return (data.root ??= ["all", 0, 0, [], null]);
}

export function frameText(data: FlameData, n: TreeNode, depth: number): string {
  const c = depth ? data.changes[n[0]] : undefined;
  const s = data.scale;
  if (data.mode === "single") {
    const t = `${n[0]}\n${share(n[1])} of ${data.axis} (this path)`;
    return s.after ? `${t} · ${absolute(n[1] * s.after.total, s.after)}` : t;
  }
  let t = `${n[0]}\nbefore ${share(n[2])} · after ${share(n[1])} of ${data.axis} (this path)`;
  if (s.before && s.after) t += `\n${absolute(n[2] * s.before.total, s.before)} → ${absolute(n[1] * s.after.total, s.after)} per capture`;
  if (depth && n[1] === 0 && n[2] > 0) t += "\ngone in the new version";
  if (c) t += `\n${sentence(c)}`;
  else if (depth) t += "\nnot tested (below the testing floor)";
  return t;
}

/** One capture on its own: a warm hue per function name, stable across pages. */
function hue(name: string): string {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) | 0;
  return `hsl(${20 + (Math.abs(h) % 40)},80%,${72 + (Math.abs(h >> 8) % 12)}%)`;
}

export function frameFill(data: FlameData, n: TreeNode, depth: number): string {
  if (depth === 0) return ROOT_FRAME;
  if (data.mode === "single") return hue(n[0]);
  const c = data.changes[n[0]];
  return c ? changeColour(c[0], c[3]) : NOT_TESTED;
}
