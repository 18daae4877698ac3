// The diff as the capture screen and the comparison page show it: the verdict told as a
// regression or an improvement (colour-blind-safe colours and words), what it rests on (adjusted
// p, noise floor, power, captures that would decide), the controls (axis, self/total, view), a
// flame graph per axis, absent axes, and the ranked table of changes.
import type { AxisReport, Change, DiffResult } from "../../witness/diff.ts";
import { count, signedPercent as pct } from "../../witness/table.ts";
import { adjustedP, changeWord, direction, LEGEND, verdictWords } from "../../witness/palette.ts";
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

function ranked(changes: Change[]): Change[] {
  return [...changes].sort((a, b) => Number(b.flagged) - Number(a.flagged) || a.adjusted_p - b.adjusted_p || Math.abs(b.relative_change) - Math.abs(a.relative_change));
}

function changeTable(d: DiffShown): Html {
  const r = d.result;
  if (r.changes.length === 0) return html`<p class="muted">No function was tested (too few samples on both sides).</p>`;
  const perSide = Math.max(1, Math.min(r.captures.before.length, r.captures.after.length));
  const scaleOf = new Map(d.flames.map((f) => [f.axis, f.scale]));
  const rows = ranked(r.changes)
    .slice(0, TABLE_ROWS)
    .map((c) => {
      const w = changeWords(c, { q: r.q, minEffect: r.min_effect, detectEffect: r.detect.effect, perSide, tests: r.multiple_testing.tests });
      const s = scaleOf.get(c.axis);
      const abs = (v: number, side: "before" | "after") => {
        const sc = s?.[side];
        return sc ? absolute(v, sc) : `${Math.round(v)} ${c.unit}`;
      };
      const relative = relativeFallNote(r, c);
      const badge = c.flagged
        ? html`<span class="chg ${c.direction}">${changeWord(c.direction)}</span>${c.confirmation ? html` <span class="muted">${c.confirmation}</span>` : ""}`
        : html`<span class="chg ${c.verdict}">${c.verdict}</span>`;
      return html`<tr class="${c.flagged ? `flag-${c.direction}` : ""}" data-axis="${c.axis}" data-kind="${c.kind}"><td class="fn">${c.function}</td><td>${c.axis} · ${c.kind === "inclusive" ? "total" : "self"}</td>
<td>${pct(c.relative_change)}</td><td>[${pct(c.interval[0])}, ${pct(c.interval[1])}]</td>
<td>${(c.before.share * 100).toFixed(2)}% → ${(c.after.share * 100).toFixed(2)}%<br><span class="muted">${abs(c.before.value, "before")} → ${abs(c.after.value, "after")}</span></td>
<td>${adjustedP(c.adjusted_p)}</td><td>±${(c.noise_floor * 100).toFixed(1)}%</td><td>${w.power.toFixed(2)}</td>
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
  const powers = r.axes_compared.map((a) => html`<li><strong>${a.axis}</strong>: ${testsLine(r, a)}. A ${Math.round(r.detect.effect * 100)}% change of a ${r.detect.share * 100}%-share function would be flagged with probability ${a.power.toFixed(2)}${a.replicates_needed !== null && a.power < r.detect.power + 1e-9 && r.verdict === "insufficient" ? html`; ${a.replicates_needed} captures per version would raise it to ${r.detect.power >= 0.8 ? "0.8" : "the target"}` : ""}.</li>`);
  const what =
    r.verdict === "insufficient"
      ? html`<p class="explain"><strong>Not decided.</strong> Nothing cleared the noise floor, but these captures could also have missed a real change: this is not a “no change”. ${r.replicates_needed !== null ? html`With <strong>${r.replicates_needed} captures per version</strong> (${perSide} now) the verdict would be decided.` : html`More captures per version would help; more than 200 would be needed on the noisiest axis.`}</p>`
      : r.verdict === "unchanged"
        ? html`<p class="explain"><strong>No change found</strong>, and a ${Math.round(r.detect.effect * 100)}% change of a ${r.detect.share * 100}%-share function would have been seen with probability ${r.detect.power.toFixed(2)}.</p>`
        : html`<p class="explain"><strong>Changed.</strong> Each flagged change below cleared the noise floor after adjusting for the ${r.multiple_testing.tests} distinct tests (family-wise error ≤ ${r.q}) and is at least ${Math.round(r.min_effect * 100)}%. An increase of cost is a regression, a decrease an improvement.</p>`;
  return html`${what}<ul class="powers">${powers}</ul>
<p class="muted">The 95% intervals are per function; the verdict uses the p-value adjusted for all ${r.multiple_testing.tests} distinct tests, so an interval that excludes no change can still be “insufficient” (the row says so).</p>`;
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
  return html`<p>${verdictBadge(r, "verdict")} <span id="verdict-reason">${r.reason}</span></p>${relative ? html`<p class="explain" id="relative-falls">${relative}</p>` : ""}${summary(r)}
<p class="legend">${LEGEND.map(([key, , words]) => html`<span class="sw ${key}"></span> ${words} `)}<span class="sw gone"></span> gone in the new version</p>
${controls(d)}${absent}${graphs}<h3>Ranked changes</h3>${changeTable(d)}`;
}
