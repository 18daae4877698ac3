// Self-contained HTML differential flame graph (icicle: root on top), the standalone twin of the
// app's capture screen: the same widths (both versions), colours, hover words, adjusted p and
// legend (palette.ts holds them once). Colour = the function's change *only when it cleared the
// noise floor* (orange: regression, blue: improvement, stronger for bigger changes); everything
// else stays neutral — unlike a plain differential flame graph, sampling noise paints nothing.

import type { Capture } from "./model.ts";
import type { Change, DiffResult } from "./diff-result.ts";
import { addStackShares, shareRoot, type ShareNode as Node } from "./aggregate.ts";
import { signedPercent as pct } from "./words.ts";
import { adjustedP, changeColour, changeSentence, changeWord, frameChanges, LEGEND, NOT_TESTED, ROOT_FRAME, verdictWords } from "./palette.ts";

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function flame(axis: string, result: DiffResult, input: { before: Capture[]; after: Capture[] }): string {
  const root = shareRoot();
  const nA = addStackShares(root, input.after, axis, "after");
  const nB = addStackShares(root, input.before, axis, "before");
  const painted = frameChanges(result.changes, axis);
  // Width as the app's default (differential) view draws it: the mean of both versions' shares.
  const width = (n: Node) => (n.after / Math.max(1, nA) + n.before / Math.max(1, nB)) / 2;
  const rows: string[] = [];
  const ROW = 18;
  let maxDepth = 0;
  // Iterative, not recursive: stacks can be 20,000 frames deep.
  const todo: Array<[Node, number, number]> = [[root, 0, 0]];
  while (todo.length) {
    const [n, x, depth] = todo.pop()!;
    const w = width(n);
    if (w < 0.0005) continue;
    maxDepth = Math.max(maxDepth, depth);
    const c = depth === 0 ? undefined : painted.get(n.name);
    const after = n.after / Math.max(1, nA);
    const before = n.before / Math.max(1, nB);
    const tip =
      `${n.name}\nbefore ${(before * 100).toFixed(2)}% · after ${(after * 100).toFixed(2)}% of ${axis} (this path)` +
      (depth && after === 0 && before > 0 ? "\ngone in the new version" : "") +
      (c ? `\n${changeSentence(c)}` : depth ? "\nnot tested (below the testing floor)" : "");
    const fill = depth === 0 ? ROOT_FRAME : c ? changeColour(c.relative_change, c.flagged) : NOT_TESTED;
    rows.push(`<div class="f" style="left:${(x * 100).toFixed(4)}%;width:${(w * 100).toFixed(4)}%;top:${depth * ROW}px;background:${fill}" title="${esc(tip)}">${esc(n.name)}</div>`);
    let cx = x;
    const next: Array<[Node, number, number]> = [];
    for (const ch of [...n.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      next.push([ch, cx, depth + 1]);
      cx += width(ch);
    }
    for (let i = next.length - 1; i >= 0; i--) todo.push(next[i]!);
  }
  return `<div class="graph" style="height:${(maxDepth + 1) * ROW}px">${rows.join("")}</div>`;
}

/** Causes, then secondary changes, then the rest (a diff stored before roles existed: flagged first). */
const rank = (c: Change) => (c.flagged ? 2 : c.role === "secondary" ? 1 : 0);

/** The causes, first: each function whose own work changed, with its change and interval (secondary changes are in the tables). */
function causeList(r: DiffResult): string {
  const seen = new Set<string>();
  const items = r.changes.filter((c) => c.flagged && !seen.has(`${c.function}\u0000${c.axis}`) && seen.add(`${c.function}\u0000${c.axis}`));
  if (!items.length) return "";
  return `<ul class="causes">${items.map((c) => `<li class="cause ${c.direction}"><b>${esc(c.function)}</b> (${esc(c.axis)}) ${pct(c.relative_change)} [${pct(c.interval[0])}, ${pct(c.interval[1])}] ${changeWord(c.direction)}${c.confirmation ? `, ${c.confirmation}` : ""}</li>`).join("")}</ul>`;
}

function table(changes: Change[]): string {
  const rows = [...changes]
    .sort((a, b) => rank(b) - rank(a) || a.adjusted_p - b.adjusted_p || Math.abs(b.relative_change) - Math.abs(a.relative_change))
    .slice(0, 50)
    .map(
      (c) =>
        `<tr class="${c.flagged ? c.direction : ""}"><td class="fn">${esc(c.function)}</td><td>${c.axis} · ${c.kind === "inclusive" ? "total" : "self"}</td><td>${pct(c.relative_change)}</td><td>[${pct(c.interval[0])}, ${pct(c.interval[1])}]</td><td>${(c.before.share * 100).toFixed(2)}% → ${(c.after.share * 100).toFixed(2)}%</td><td>${esc(adjustedP(c.adjusted_p))}</td><td>±${(c.noise_floor * 100).toFixed(1)}%</td><td>${c.flagged ? `${changeWord(c.direction)}${c.confirmation ? ` (${c.confirmation})` : ""}` : c.role === "secondary" ? `secondary: explained by ${esc(c.explained_by.join(", "))}` : c.verdict}</td></tr>`,
    )
    .join("");
  return `<table><tr><th>Function</th><th>Axis · cost</th><th>Change</th><th>95% interval</th><th>Before → after (share)</th><th>Adjusted p</th><th>Noise floor</th><th>Verdict</th></tr>${rows}</table>`;
}

/** The diff as one HTML page; pass the captures to get flame graphs, without them only the tables. */
export function renderDiffHtml(result: DiffResult, input?: { before: Capture[]; after: Capture[] }): string {
  const axes = result.axes_compared
    .map((a) => {
      const graph = input ? flame(a.axis, result, input) : "";
      return `<h2>${esc(a.axis)}</h2><p>${a.captures.before} vs ${a.captures.after} captures · run-to-run CV ${(a.dispersion.run_to_run_cv * 100).toFixed(1)}% (${a.dispersion.source}) · ${a.flagged} flagged of ${a.tested} tests${a.secondary ? ` (${a.secondary} more secondary)` : ""} · normalisation ${a.normalisation}</p>${graph}${table(result.changes.filter((c) => c.axis === a.axis))}`;
    })
    .join("");
  const missing = result.axes_not_compared.map((a) => `<li><b>${esc(a.axis)}</b>: absent — ${esc(a.reason)}</li>`).join("");
  const notes = result.notes.map((n) => `<li>${esc(n)}</li>`).join("");
  return `<!doctype html><html><head><meta charset="utf-8"><title>witness diff: ${esc(verdictWords(result))}</title><style>
body{font:13px system-ui,sans-serif;margin:16px;color:#222}
.graph{position:relative;width:100%;margin:8px 0 16px;overflow:hidden}
.f{position:absolute;height:17px;line-height:17px;font-size:11px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;box-sizing:border-box;border-right:1px solid #fff;padding-left:2px;cursor:default}
.f:hover{outline:1px solid #000}
table{border-collapse:collapse;margin-bottom:16px}td,th{border-bottom:1px solid #ddd;padding:2px 8px;text-align:left}
td.fn{overflow-wrap:normal;word-break:keep-all}tr.up td{background:#fff4eb}tr.down td{background:#eff6ff}
.legend span{display:inline-block;padding:2px 8px;margin-right:6px}
</style></head><body>
<h1>Verdict: ${esc(verdictWords(result))}</h1><p id="reason">${esc(result.reason)}</p>${causeList(result)}
<p class="legend">${LEGEND.map(([, colour, words]) => `<span style="background:${colour}">${words}</span>`).join("")} width = both versions</p>
${missing ? `<ul>${missing}</ul>` : ""}${notes ? `<ul>${notes}</ul>` : ""}${axes}
</body></html>`;
}
