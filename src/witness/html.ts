// Self-contained HTML differential flame graph (icicle: root on top). Width = the after version's
// value; colour = the function's inclusive change *only when it cleared the noise floor* (red up,
// blue down, stronger for bigger changes). Everything that did not clear it stays neutral grey —
// unlike a plain differential flame graph, sampling noise paints nothing.

import type { Capture } from "./model.ts";
import type { Change, DiffResult } from "./diff-result.ts";
import { addStackShares, shareRoot, type ShareNode as Node } from "./aggregate.ts";
import { signedPercent as pct } from "./words.ts";

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function colour(c: Change | undefined): string {
  if (!c) return "#e6e6e6";
  if (!c.flagged) return "#d9d4c7";
  const k = Math.min(1, Math.abs(c.relative_change) / 0.5);
  const light = Math.round(85 - 40 * k);
  return c.direction === "up" ? `hsl(0,75%,${light}%)` : `hsl(215,75%,${light}%)`;
}

function flame(axis: string, result: DiffResult, input: { before: Capture[]; after: Capture[] }): string {
  const root = shareRoot();
  const nA = addStackShares(root, input.after, axis, "after");
  const nB = addStackShares(root, input.before, axis, "before");
  const incl = new Map<string, Change>();
  for (const c of result.changes) if (c.axis === axis && c.kind === "inclusive") incl.set(c.function, c);
  const rows: string[] = [];
  const ROW = 18;
  let maxDepth = 0;
  // Iterative, not recursive: stacks can be 20,000 frames deep.
  const todo: Array<[Node, number, number]> = [[root, 0, 0]];
  while (todo.length) {
    const [n, x, depth] = todo.pop()!;
    const w = n.after / Math.max(1, nA);
    if (w < 0.0005) continue;
    maxDepth = Math.max(maxDepth, depth);
    const c = depth === 0 ? undefined : incl.get(n.name);
    const before = n.before / Math.max(1, nB);
    const tip =
      `${n.name}\nafter ${(w * 100).toFixed(2)}% of ${axis}, before ${(before * 100).toFixed(2)}% (this path)` +
      (c ? `\nfunction inclusive: ${pct(c.relative_change)} [${pct(c.interval[0])}, ${pct(c.interval[1])}] — ${c.flagged ? `CHANGED (${c.confirmation})` : c.role === "secondary" ? `secondary, explained by ${c.explained_by.join(", ")}` : c.verdict}` : depth ? "\nnot tested (below the testing floor)" : "");
    rows.push(
      `<div class="f" style="left:${(x * 100).toFixed(4)}%;width:${(w * 100).toFixed(4)}%;top:${depth * ROW}px;background:${depth === 0 ? "#c8c8c8" : colour(c)}" title="${esc(tip)}">${esc(n.name)}</div>`,
    );
    let cx = x;
    const next: Array<[Node, number, number]> = [];
    for (const ch of [...n.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      next.push([ch, cx, depth + 1]);
      cx += ch.after / Math.max(1, nA);
    }
    for (let i = next.length - 1; i >= 0; i--) todo.push(next[i]!);
  }
  return `<div class="graph" style="height:${(maxDepth + 1) * ROW}px">${rows.join("")}</div>`;
}

function table(changes: Change[]): string {
  const rows = changes
    .slice(0, 50)
    .map(
      (c) =>
        `<tr class="${c.flagged ? (c.direction === "up" ? "up" : "down") : ""}"><td>${esc(c.function)}</td><td>${c.axis}/${c.kind}</td><td>${pct(c.relative_change)}</td><td>[${pct(c.interval[0])}, ${pct(c.interval[1])}]</td><td>${(c.before.share * 100).toFixed(2)}% → ${(c.after.share * 100).toFixed(2)}%</td><td>${c.p.toExponential(2)}</td><td>${c.flagged ? `changed (${c.confirmation})` : c.role === "secondary" ? `secondary: explained by ${esc(c.explained_by.join(", "))}` : c.verdict}</td></tr>`,
    )
    .join("");
  return `<table><tr><th>function</th><th>axis</th><th>change</th><th>95% interval</th><th>share</th><th>p</th><th>verdict</th></tr>${rows}</table>`;
}

/** The causes, first: each function whose own work changed, with its change and interval (secondary changes are in the tables). */
function causeList(r: DiffResult): string {
  const seen = new Set<string>();
  const items = r.changes.filter((c) => c.flagged && !seen.has(`${c.function}\u0000${c.axis}`) && seen.add(`${c.function}\u0000${c.axis}`));
  if (!items.length) return "";
  return `<ul class="causes">${items.map((c) => `<li class="cause ${c.direction}"><b>${esc(c.function)}</b> (${esc(c.axis)}) ${pct(c.relative_change)} [${pct(c.interval[0])}, ${pct(c.interval[1])}] ${c.direction === "up" ? "regression" : "improvement"}, ${c.confirmation}</li>`).join("")}</ul>`;
}

/** The diff as one HTML page; pass the captures to get flame graphs, without them only the tables. */
export function renderDiffHtml(result: DiffResult, input?: { before: Capture[]; after: Capture[] }): string {
  const axes = result.axes_compared
    .map((a) => {
      const graph = input ? flame(a.axis, result, input) : "";
      return `<h2>${esc(a.axis)}</h2><p>${a.captures.before} vs ${a.captures.after} captures · run-to-run CV ${(a.dispersion.run_to_run_cv * 100).toFixed(1)}% (${a.dispersion.source}) · ${a.flagged} flagged of ${a.tested} tests · normalisation ${a.normalisation}</p>${graph}${table(result.changes.filter((c) => c.axis === a.axis))}`;
    })
    .join("");
  const missing = result.axes_not_compared.map((a) => `<li><b>${esc(a.axis)}</b>: not compared — ${esc(a.reason)}</li>`).join("");
  const notes = result.notes.map((n) => `<li>${esc(n)}</li>`).join("");
  return `<!doctype html><html><head><meta charset="utf-8"><title>witness diff: ${result.verdict}</title><style>
body{font:13px system-ui,sans-serif;margin:16px;color:#222}
.graph{position:relative;width:100%;margin:8px 0 16px;overflow:hidden}
.f{position:absolute;height:17px;line-height:17px;font-size:11px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;box-sizing:border-box;border-right:1px solid #fff;padding-left:2px;cursor:default}
.f:hover{outline:1px solid #000}
table{border-collapse:collapse;margin-bottom:16px}td,th{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left}
tr.up td{background:#fde2e2}tr.down td{background:#e0ebfb}
.legend span{display:inline-block;padding:2px 8px;margin-right:6px}
</style></head><body>
<h1>Verdict: ${esc(result.verdict)}</h1><p id="reason">${esc(result.reason)}</p>${causeList(result)}
<p class="legend"><span style="background:hsl(0,75%,55%)">grew (flagged)</span><span style="background:hsl(215,75%,55%)">shrank (flagged)</span><span style="background:#d9d4c7">within noise</span><span style="background:#e6e6e6">not tested</span> width = after version</p>
${missing ? `<ul>${missing}</ul>` : ""}${notes ? `<ul>${notes}</ul>` : ""}${axes}
</body></html>`;
}
