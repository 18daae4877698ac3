// The sandwich of one function: its callers merged upwards (read from the function up) and its
// callees merged downwards, each drawn as a flame graph of this capture alone.
import { mount } from "./flame.ts";
import { child, type FlameData, type TreeNode } from "./flame-types.ts";
import { share, tree } from "./frame-text.ts";

/** The child of `node` named `name`, made when missing. */
function childNamed(node: TreeNode, name: string): TreeNode {
  const have = node[3].find((k) => k[0] === name);
  if (have) return have;
  const made: TreeNode = [name, 0, 0, [], node];
  node[3].push(made);
  return made;
}

/** Adds `from`'s subtree into `into`, by name; a stack, no recursion. */
function merge(into: TreeNode, from: TreeNode): void {
  const todo: Array<[TreeNode, TreeNode]> = [[into, from]];
  while (todo.length) {
    const [a, b] = todo.pop()!;
    a[1] += b[1];
    for (const k of b[3]) todo.push([childNamed(a, k[0]), k]);
  }
}

/** The callers and callees trees of `fn`, counting only its outermost occurrence on a path (recursion once). */
function split(root: TreeNode, fn: string): { callers: TreeNode; callees: TreeNode } {
  const callees: TreeNode = [fn, 0, 0, [], null];
  const callers: TreeNode = [fn, 0, 0, [], null];
  const todo = [root];
  while (todo.length) {
    const n = todo.pop()!;
    if (n[0] === fn && n[4]) {
      merge(callees, n);
      let node = callers;
      node[1] += n[1];
      for (let up = n[4]; up && up[4]; up = up[4]) {
        node = childNamed(node, up[0]);
        node[1] += n[1];
      }
      continue;
    }
    for (let k = n[3].length - 1; k >= 0; k--) todo.push(n[3][k]!);
  }
  return { callers, callees };
}

const FIGURE =
  '<figcaption></figcaption><div class="flame-tools"><label>Search <input type="search" class="flame-search"></label><button type="button" class="flame-reset">Reset zoom</button><span class="flame-match muted" aria-live="polite"></span></div><div class="flame-panes"><div class="flame-graph" role="group"></div></div><div class="flame-tip" role="tooltip" hidden></div>';

export function sandwich(block: Element, fn: string): void {
  const box = child<HTMLElement>(block, ".sandwich");
  const flameId = box.dataset.flame ?? "";
  const data = JSON.parse(document.getElementById(flameId)?.textContent ?? "null") as FlameData | null;
  if (!data) return;
  const { callers, callees } = split(tree(data), fn);
  box.hidden = false;
  box.textContent = "";
  const id = `${flameId}-sw`;
  const h = document.createElement("h4");
  h.id = `${id}-h`;
  h.tabIndex = -1;
  h.textContent = `Sandwich of ${fn} (${data.axis}): ${share(callees[1])} of the axis`;
  const close = document.createElement("button");
  close.type = "button";
  close.textContent = "Close sandwich";
  close.addEventListener("click", () => {
    box.hidden = true;
    box.textContent = "";
  });
  box.append(h, close);
  const parts: Array<[string, string, TreeNode]> = [
    ["callers", `Callers of ${fn} (read upwards from the function)`, callers],
    ["callees", `Callees of ${fn}`, callees],
  ];
  for (const [part, caption, root] of parts) {
    const fig = document.createElement("figure");
    fig.className = "flame";
    fig.innerHTML = FIGURE;
    child(fig, "figcaption").textContent = caption;
    const g = child(fig, ".flame-graph");
    g.id = `${id}-${part}`;
    g.setAttribute("aria-label", `${caption}; arrow keys move between frames, Enter zooms`);
    box.appendChild(fig);
    mount(fig, { axis: data.axis, mode: "single", root, changes: {}, scale: data.scale });
  }
  h.focus();
}
