// The diff as the capture screen and the comparison page show it: the verdict told as a
// regression or an improvement (colour-blind-safe colours and words) and each cause with its change
// and interval — the first view — then, behind a toggle, what it rests on (tests, the promise,
// captures that would decide), the controls (axis, self/total, view), a flame graph per axis,
// absent axes, and the ranked table of changes (causes, secondary changes, the rest).
import { adjustedP, changeWord, count, direction, LEGEND, signedPercent as pct, verdictWords, type AxisReport, type Change, type DiffResult } from "../../witness/index.ts";
import { changeWords } from "./change-words.ts";
import { flameFigure } from "./flame-figure.ts";
import type { FlameAxis } from "./flame-data.ts";
import { html, type Html } from "./html.ts";
import { relativeFallNote, relativeFallSummary } from "./relative-fall.ts";
import { absolute } from "./units.ts";

const TABLE_ROWS = 100;

export interface DiffShown {
  result: DiffResult;
  flames: FlameAxis[];
  absent: Array<{ axis: string; reason: string }>;
  /** Where the full list of changes can be downloaded (the diff as JSON). */
  jsonHref: string;
}

export function verdictBadge(r: DiffResult | null, id?: string): Html {
  if (!r) return html`<span class="verdict v-none"${id ? html` id="${id}"` : ""}>no diff</span>`;
  const d = r.verdict === "changed" ? direction(r) : null;
  return html`<span class="verdict v-${r.verdict}${d ? ` d-${d}` : ""}"${id ? html` id="${id}"` : ""} data-verdict="${r.verdict}">${verdictWords(r)}</span>`;
}

/** Causes, then secondary changes, then the rest by evidence (a stored diff without roles: flagged first). */
function ranked(changes: Change[]): Change[] {
  const rank = (c: Change) => (c.flagged ? 2 : c.role === "secondary" ? 1 : 0);
  return [...changes].sort((a, b) => rank(b) - rank(a) || a.adjusted_p - b.adjusted_p || Math.abs(b.relative_change) - Math.abs(a.relative_change));
}

function changeTable(d: DiffShown): Html {
  const r = d.result;
  if (r.changes.length === 0) return html`<p class="muted">No function was tested (too few samples on both sides).</p>`;
  const perSide = Math.max(1, Math.min(r.captures.before.length, r.captures.after.length));
  const scaleOf = new Map(d.flames.map((f) => [f.axis, f.scale]));
  const rows = ranked(r.changes)
    .slice(0, TABLE_ROWS)
    .map((c) => {
      const w = changeWords(c, { q: r.q, minEffect: r.min_effect, perSide, tests: r.multiple_testing.tests });
      const s = scaleOf.get(c.axis);
      const abs = (v: number, side: "before" | "after") => {
        const sc = s?.[side];
        return sc ? absolute(v, sc) : `${Math.round(v)} ${c.unit}`;
      };
      const relative = relativeFallNote(r, c);
      const badge = c.flagged
        ? html`<span class="chg ${c.direction}">${changeWord(c.direction)}</span>${c.confirmation ? html` <span class="muted">${c.confirmation}</span>` : ""}`
        : c.role === "secondary"
          ? html`<span class="chg secondary">secondary</span> <span class="muted">explained by ${c.explained_by.join(", ")}</span>`
          : html`<span class="chg ${c.verdict}">${c.verdict}</span>`;
      return html`<tr class="${c.flagged ? `flag-${c.direction}` : ""}" data-axis="${c.axis}" data-kind="${c.kind}"><td class="fn">${c.function}</td><td>${c.axis} · ${c.kind === "inclusive" ? "total" : "self"}</td>
<td>${pct(c.relative_change)}</td><td>[${pct(c.interval[0])}, ${pct(c.interval[1])}]</td>
<td>${(c.before.share * 100).toFixed(2)}% → ${(c.after.share * 100).toFixed(2)}%<br><span class="muted">${abs(c.before.value, "before")} → ${abs(c.after.value, "after")}</span></td>
<td>${adjustedP(c.adjusted_p)}</td><td>±${(c.noise_floor * 100).toFixed(1)}%</td><td>${w.power === null ? "—" : w.power.toFixed(2)}</td>
<td>${badge}</td><td class="words">${relative ? html`<strong class="relative">${relative}</strong> ` : ""}${w.text}${w.intervalNote ? html` <em>${w.intervalNote}</em>` : ""}</td></tr>`;
    });
  return html`<div class="scroll"><table class="changes"><caption class="sr-only">Changes ranked by evidence</caption><thead><tr><th scope="col">Function</th><th scope="col">Axis · cost</th><th scope="col">Change</th><th scope="col">95% interval</th><th scope="col">Before → after (share, per capture)</th><th scope="col">Adjusted p</th><th scope="col">Noise floor</th><th scope="col">Power (${Math.round(r.detect.effect * 100)}% change)</th><th scope="col">Verdict</th><th scope="col">In words</th></tr></thead>
<tbody>${rows}</tbody></table></div>${r.changes.length > TABLE_ROWS ? html`<p class="muted">${TABLE_ROWS} of ${r.changes.length} tests (a function's self or total cost each) shown; <a href="${d.jsonHref}" download>the diff as JSON</a> has them all.</p>` : ""}`;
}

/**
 * What an axis's counts mean (witness/diff/axis-matrix.ts, selectHypotheses): `tested` counts
 * tests, one per function and cost (self, total) above the testing floor, so up to two per
 * function; `distinct_tests` counts their distinct count vectors — tests with the same counts in
 * every capture are one test, and the multiple-testing adjustment counts each once.
 */
function testsLine(r: DiffResult, a: AxisReport): string {
  const functions = new Set(r.changes.filter((c) => c.axis === a.axis).map((c) => c.function)).size;
  if (a.tested === 0) return `no function above the testing floor${a.untested ? ` (${a.untested} below it)` : ""}`;
  const what = `${a.flagged} of ${count(a.tested, "test", "tests")} flagged. A test is one function's self or total cost: ${count(functions, "function", "functions")} above the testing floor${a.untested ? `, ${a.untested} below it not tested` : ""}`;
  return a.distinct_tests < a.tested
    ? `${what}; ${a.distinct_tests} of the ${a.tested} tests are distinct: tests with the same counts in every capture (a leaf's self and total; a caller and a callee that always appear together) are one test, and the adjustment for multiple testing counts it once`
    : `${what}; all ${a.tested} are distinct`;
}

function summary(r: DiffResult): Html {
  const perSide = `${r.captures.before.length} capture${r.captures.before.length === 1 ? "" : "s"} before, ${r.captures.after.length} after`;
  const effect = `${Math.round(r.detect.effect * 100)}%`;
  const promise = (a: AxisReport) =>
    // A diff stored before witness stated promises per axis has none: its power line stays as it was.
    !a.promise
      ? html`A ${effect} change of a ${(r.detect.share ?? 0.01) * 100}%-share function would be flagged with probability ${a.power.toFixed(2)}`
      : a.promise.share === null
        ? html`These captures cannot promise to see a ${effect} change of even a 10%-share function (probability ${a.promise.power.toFixed(2)})${a.replicates_needed !== null ? html`; ${a.replicates_needed} captures per version would` : ""}`
        : html`A ${effect} change of any function above ${+(a.promise.share * 100).toFixed(1)}% of ${a.axis} would be flagged with probability ≥ ${a.promise.power.toFixed(2)}${a.promise.equivalent ? html`; every such function stayed within ±${effect} (equivalence test)` : html`; ${a.promise.wide.join(", ")} could have moved more (interval too wide)`}`;
  const powers = r.axes_compared.map((a) => html`<li><strong>${a.axis}</strong>: ${testsLine(r, a)}. ${promise(a)}.</li>`);
  const what =
    r.verdict === "insufficient"
      ? html`<p class="explain"><strong>Not decided.</strong> Nothing cleared the noise floor, but these captures could also have missed a real change: this is not a “no change”. ${r.replicates_needed !== null ? html`With <strong>${r.replicates_needed} captures per version</strong> (${perSide} now) the verdict would be decided.` : html`More captures per version would help; more than 200 would be needed on the noisiest axis.`}</p>`
      : r.verdict === "unchanged"
        ? html`<p class="explain"><strong>No change found</strong>: the verdict's promise holds — ${r.reason.replace(/^nothing changed: /, "")}.</p>`
        : html`<p class="explain"><strong>Changed.</strong> Each cause cleared the noise floor after adjusting for the ${r.multiple_testing.tests} distinct tests (family-wise error ≤ ${r.q}) and is at least ${Math.round(r.min_effect * 100)}%. An increase of cost is a regression, a decrease an improvement. A secondary change (a caller, or shared code such as an interpreter's C functions) moved only with its causes and is not counted.</p>`;
  return html`${what}<ul class="powers">${powers}</ul>
<p class="muted">The 95% intervals are per function; the verdict uses the p-value adjusted for all ${r.multiple_testing.tests} distinct tests, so an interval that excludes no change can still be “insufficient” (the row says so).</p>`;
}

/** The first thing a reader sees under the verdict: each cause with its change and interval. */
function causeList(r: DiffResult): Html | "" {
  const seen = new Set<string>();
  const causes = r.changes.filter((c) => c.flagged && !seen.has(`${c.function}\u0000${c.axis}`) && seen.add(`${c.function}\u0000${c.axis}`));
  if (!causes.length) return "";
  return html`<ol class="causes" id="causes" aria-label="Causes">${causes.map(
    (c) =>
      html`<li class="cause" data-function="${c.function}" data-axis="${c.axis}"><span class="chg ${c.direction}">${changeWord(c.direction)}</span> <strong class="fn">${c.function}</strong> <span class="muted">${c.axis} · ${c.kind === "inclusive" ? "total" : "self"}</span> ${pct(c.relative_change)} <span class="muted">[${pct(c.interval[0])}, ${pct(c.interval[1])}] · ${c.confirmation}</span></li>`,
  )}</ol>`;
}

function controls(d: DiffShown): Html {
  const axes = d.flames.map((f) => f.axis);
  return html`<div class="row diff-controls" role="group" aria-label="What to show">
<div><label for="dc-axis">Axis</label><select id="dc-axis" class="dc-axis"><option value="">all axes</option>${axes.map((a) => html`<option value="${a}">${a}</option>`)}</select></div>
<div><label for="dc-kind">Cost</label><select id="dc-kind" class="dc-kind"><option value="">self and total</option><option value="self">self</option><option value="inclusive">total</option></select></div></div>`;
}

export function diffBody(d: DiffShown): Html {
  const r = d.result;
  const absent = d.absent.length ? html`<ul class="absent" aria-label="Absent axes">${d.absent.map((a) => html`<li><strong>${a.axis}</strong>: absent — ${a.reason}</li>`)}</ul>` : "";
  const graphs = d.flames.map((f) =>
    flameFigure(
      f,
      f.axis,
      html`<h3>${f.axis}</h3> <span class="muted">${f.unit} · ${f.captures.before} before vs ${f.captures.after} after captures · width = both versions, colour = flagged change, hatched = gone in the new version</span>`,
    ),
  );
  const relative = relativeFallSummary(r);
  return html`<p>${verdictBadge(r, "verdict")} <span id="verdict-reason">${r.reason}</span></p>${causeList(r)}${relative ? html`<p class="explain" id="relative-falls">${relative}</p>` : ""}<details class="testing" id="testing"><summary>How this was tested</summary>${summary(r)}</details>
<p class="legend">${LEGEND.map(([key, , words]) => html`<span class="sw ${key}"></span> ${words} `)}<span class="sw gone"></span> gone in the new version</p>
${controls(d)}${absent}${graphs}<h3>Ranked changes</h3>${changeTable(d)}`;
}
