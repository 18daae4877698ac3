// A flame graph figure: drawn from its data, zoomed by click or Enter, searched, explained on
// hover, focus and tap, and walked with the arrow keys (one Tab stop per graph). Stages: mount
// builds the state; drawFlame draws every pane; zoom, tips and keys each take the state.
import { child, FRAMES, frameOf, type FlameData, type FlameState, type Pane, type TreeNode, type View } from "./flame-types.ts";
import { frameFill, frameText, tree } from "./frame-text.ts";

const ROW = window.matchMedia("(max-width: 640px)").matches ? 24 : 18;

export function mount(fig: HTMLElement, data: FlameData): void {
  const root = tree(data);
  const st: FlameState = {
    fig,
    data: { ...data, root },
    panes: child(fig, ".flame-panes"),
    graph: { el: child(fig, ".flame-graph"), frames: [] },
    tip: child(fig, ".flame-tip"),
    search: child<HTMLInputElement>(fig, ".flame-search"),
    matchNote: child(fig, ".flame-match"),
    focusPath: [root],
    view: data.mode === "diff" ? "diff" : "after",
    second: null,
    lastPointer: null,
  };
  const viewSel = fig.querySelector<HTMLSelectElement>(".flame-view");
  bindGraph(st, st.graph);
  st.search.addEventListener("input", () => drawFlame(st, null, null));
  viewSel?.addEventListener("change", () => {
    st.view = viewSel.value as View;
    drawFlame(st, null, null);
  });
  child(fig, ".flame-reset").addEventListener("click", () => resetZoom(st, false));
  drawFlame(st, null, null);
}

const frameWidth = (n: TreeNode, v: View): number => (v === "diff" ? (n[1] + n[2]) / 2 : v === "before" ? n[2] : n[1]);

function frameElement(st: FlameState, n: TreeNode, x: number, w: number, d: number, ancestor: boolean, term: string): HTMLElement {
  const data = st.data;
  const el = document.createElement("div");
  el.className = "fr";
  el.tabIndex = -1;
  el.setAttribute("role", "button");
  el.style.left = `${x * 100}%`;
  el.style.width = `${w * 100}%`;
  el.style.top = `${d * ROW}px`;
  if (data.mode === "diff" && d > 0 && n[1] === 0 && n[2] > 0) el.classList.add("gone");
  else el.style.background = frameFill(data, n, d);
  el.textContent = n[0];
  el.setAttribute("aria-label", frameText(data, n, d).replace(/\n/g, "; "));
  if (term) el.classList.add(n[0].toLowerCase().includes(term) ? "match" : "dim");
  FRAMES.set(el, { node: n, depth: d, ancestor, x, w });
  return el;
}

/** Draws one pane (view v) from the zoomed node down; the Tab stop stays on `keep` when it is drawn. */
function drawGraph(st: FlameState, pane: Pane, v: View, keep: TreeNode | null): { matches: number; term: string } {
  const g = pane.el;
  g.textContent = "";
  const frames: HTMLElement[] = [];
  const frag = document.createDocumentFragment();
  const focusPath = st.focusPath;
  const focus = focusPath[focusPath.length - 1]!;
  const scale = frameWidth(focus, v) > 0 ? frameWidth(focus, v) : 1;
  const term = st.search.value.toLowerCase();
  let maxDepth = 0;
  let matches = 0;
  const add = (n: TreeNode, x: number, w: number, d: number, ancestor: boolean) => {
    maxDepth = Math.max(maxDepth, d);
    const el = frameElement(st, n, x, w, d, ancestor, term);
    if (el.classList.contains("match")) matches++;
    frames.push(el);
    frag.appendChild(el);
  };
  let depth = 0;
  for (const n of focusPath.slice(0, -1)) add(n, 0, 1, depth++, true);
  const todo: Array<[TreeNode, number, number]> = [[focus, 0, depth]];
  while (todo.length) {
    const [n, x, d] = todo.pop()!;
    const w = frameWidth(n, v) / scale;
    if (w < 0.001) continue;
    add(n, x, w, d, false);
    let cx = x;
    const next: Array<[TreeNode, number, number]> = [];
    for (const k of n[3]) {
      next.push([k, cx, d + 1]);
      cx += frameWidth(k, v) / scale;
    }
    while (next.length) todo.push(next.pop()!);
  }
  g.appendChild(frag);
  g.style.height = `${(maxDepth + 1) * ROW}px`;
  pane.frames = frames;
  // One Tab stop per graph: the kept frame, else the zoomed one; none when nothing was drawn.
  const stop = frames.find((f) => frameOf(f)?.node === keep) ?? frames.find((f) => frameOf(f)?.node === focus) ?? frames[0];
  if (stop) stop.tabIndex = 0;
  return { matches, term };
}

const hint = "arrow keys move between frames, Enter zooms";

/** The side-by-side view has a second pane (after) beside the first (before); other views one. */
function arrangePanes(st: FlameState): void {
  const graph = st.graph.el;
  const axis = st.data.axis;
  if (st.view === "split") {
    if (!st.second) {
      const el = document.createElement("div");
      el.className = "flame-graph";
      el.id = `${graph.id}-after`;
      el.setAttribute("role", "group");
      el.setAttribute("aria-label", `After: flame graph of ${axis}; ${hint}`);
      st.panes.appendChild(el);
      st.second = { el, frames: [] };
      bindGraph(st, st.second);
    }
    st.panes.classList.add("split");
    graph.setAttribute("aria-label", `Before: flame graph of ${axis}; ${hint}`);
  } else if (st.second) {
    st.panes.removeChild(st.second.el);
    st.second = null;
    st.panes.classList.remove("split");
    graph.setAttribute("aria-label", `Flame graph of ${axis}; ${hint}, Escape resets`);
  }
}

/** Redraws every pane; `refocus`: the pane whose Tab stop takes focus afterwards (keyboard zoom). */
function drawFlame(st: FlameState, keep: TreeNode | null, refocus: HTMLElement | null): void {
  arrangePanes(st);
  const a = drawGraph(st, st.graph, st.view === "split" ? "before" : st.view, keep);
  if (st.second) drawGraph(st, st.second, "after", keep);
  st.matchNote.textContent = a.term ? `${a.matches} matching frame${a.matches === 1 ? "" : "s"}` : "";
  if (refocus) {
    const g = refocus.isConnected ? refocus : st.graph.el;
    g.querySelector<HTMLElement>(".fr[tabindex='0']")?.focus();
  }
}

function pathTo(root: TreeNode, n: TreeNode): TreeNode[] {
  const path: TreeNode[] = [];
  for (let m: TreeNode | null = n; m; m = m[4]) path.unshift(m);
  return path.length ? path : [root];
}

function zoomInto(st: FlameState, el: HTMLElement, byKey: boolean): void {
  const f = frameOf(el);
  const g = el.parentElement;
  if (!f || !g) return;
  st.focusPath = f.ancestor ? st.focusPath.slice(0, st.focusPath.indexOf(f.node) + 1) : pathTo(st.data.root, f.node);
  drawFlame(st, f.node, byKey ? g : null);
  // A tap or click keeps explaining the frame it zoomed into (touch has no hover to bring it back).
  if (!byKey && g.isConnected) {
    const again = g.querySelector<HTMLElement>(".fr[tabindex='0']");
    if (again && frameOf(again)?.node === f.node) showTip(st, again, st.lastPointer);
  }
}

function resetZoom(st: FlameState, byKey: boolean): void {
  st.focusPath = [st.data.root];
  drawFlame(st, st.data.root, byKey ? st.graph.el : null);
}

function showTip(st: FlameState, el: HTMLElement, at: { clientX: number; clientY: number } | null): void {
  const f = frameOf(el);
  if (!f) return;
  const tip = st.tip;
  tip.textContent = frameText(st.data, f.node, f.depth);
  tip.hidden = false;
  const box = st.fig.getBoundingClientRect();
  const r = el.getBoundingClientRect();
  const x = at?.clientX ? at.clientX - box.left + 12 : r.left - box.left;
  const y = (at?.clientY ? at.clientY : r.bottom) - box.top + 12;
  tip.style.left = `${Math.max(0, Math.min(x, box.width - 300))}px`;
  tip.style.top = `${y}px`;
}

/** Arrow keys: up to the caller, down to the first callee, left/right to neighbours on the row. */
function neighbour(pane: Pane, el: HTMLElement, key: string): HTMLElement | null {
  const me = frameOf(el)!;
  const eps = 1e-9;
  let best: HTMLElement | null = null;
  let bi: ReturnType<typeof frameOf>;
  for (const o of pane.frames) {
    const f = frameOf(o);
    if (o === el || !f) continue;
    const better =
      (key === "ArrowLeft" && f.depth === me.depth && f.x < me.x - eps && (!bi || f.x > bi.x)) ||
      (key === "ArrowRight" && f.depth === me.depth && f.x > me.x + eps && (!bi || f.x < bi.x)) ||
      (key === "ArrowUp" && f.depth === me.depth - 1 && f.x <= me.x + eps && f.x + f.w >= me.x + me.w - 1e-6) ||
      (key === "ArrowDown" && f.depth === me.depth + 1 && f.x >= me.x - eps && f.x < me.x + me.w && (!bi || f.x < bi.x));
    if (better) [best, bi] = [o, f];
  }
  return key === "Home" ? (pane.frames[0] ?? null) : best;
}

function onGraphKey(st: FlameState, pane: Pane, ev: KeyboardEvent): void {
  const t = ev.target as HTMLElement;
  if (!frameOf(t)) return;
  if (ev.key === "Enter" || ev.key === " ") {
    ev.preventDefault();
    zoomInto(st, t, true);
  } else if (ev.key === "Escape") {
    ev.preventDefault();
    resetZoom(st, true);
  } else if (/^Arrow|^Home$/.test(ev.key)) {
    ev.preventDefault();
    const n = neighbour(pane, t, ev.key);
    if (!n) return;
    t.tabIndex = -1;
    n.tabIndex = 0;
    n.focus();
  }
}

function bindGraph(st: FlameState, pane: Pane): void {
  const g = pane.el;
  const tip = st.tip;
  const frame = (ev: Event) => (frameOf(ev.target) ? (ev.target as HTMLElement) : null);
  g.addEventListener("mousemove", (ev) => {
    const f = frame(ev);
    if (f) showTip(st, f, ev);
  });
  g.addEventListener("mouseleave", () => (tip.hidden = true));
  g.addEventListener("focusin", (ev) => {
    const f = frame(ev);
    if (f) showTip(st, f, null);
  });
  g.addEventListener("focusout", (ev) => {
    const next = ev.relatedTarget as Node | null;
    if ((!next || !g.contains(next)) && (ev.target as Node).isConnected) tip.hidden = true;
  });
  // Touch has no hover: a tap shows the frame's text (kept while the graph zooms into it).
  g.addEventListener("pointerdown", (ev) => {
    st.lastPointer = { clientX: ev.clientX, clientY: ev.clientY };
    const f = frame(ev);
    if (ev.pointerType !== "mouse" && f) showTip(st, f, ev);
  });
  g.addEventListener("click", (ev) => {
    const f = frame(ev);
    if (f) zoomInto(st, f, false);
  });
  g.addEventListener("keydown", (ev) => onGraphKey(st, pane, ev));
}
