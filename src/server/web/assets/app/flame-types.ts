// What the browser holds of a flame graph: the server's data (flame-data.ts, as JSON beside each
// figure) plus the tree rebuilt from its flat rows, and what the reader has done with it.
import type { FlameAxis } from "../../flame-data.ts";

/** [name, after share, before share, children, parent]: built with a stack, never recursively. */
export type TreeNode = [name: string, after: number, before: number, children: TreeNode[], parent: TreeNode | null];

/** A figure's data; `root` is filled in once from `nodes` (or given, for a sandwich). */
export type FlameData = Pick<FlameAxis, "axis" | "mode" | "changes" | "scale"> & { nodes?: FlameAxis["nodes"]; root?: TreeNode };

export type View = "diff" | "before" | "after" | "split";

/** Where one drawn frame sits, kept beside its element. */
export interface FrameInfo {
  node: TreeNode;
  depth: number;
  /** An ancestor of the zoomed node, drawn full width so the way back stays visible. */
  ancestor: boolean;
  x: number;
  w: number;
}

/** A pane of a figure: its drawn frames in drawing order. */
export interface Pane {
  el: HTMLElement;
  frames: HTMLElement[];
}

export interface FlameState {
  fig: HTMLElement;
  data: FlameData & { root: TreeNode };
  panes: HTMLElement;
  graph: Pane;
  tip: HTMLElement;
  search: HTMLInputElement;
  matchNote: HTMLElement;
  focusPath: TreeNode[];
  view: View;
  /** The side-by-side view's second (after) pane. */
  second: Pane | null;
  lastPointer: { clientX: number; clientY: number } | null;
}

/** Every drawn frame's place, by element. */
export const FRAMES = new WeakMap<EventTarget, FrameInfo>();
export const frameOf = (t: EventTarget | null): FrameInfo | undefined => (t ? FRAMES.get(t) : undefined);

/** A required child of a server-rendered block: missing means the markup and the script disagree. */
export function child<T extends Element>(root: ParentNode, selector: string): T {
  const el = root.querySelector<T>(selector);
  if (!el) throw new Error(`app.js: ${selector} is missing`);
  return el;
}
