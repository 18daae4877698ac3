// The two pickers — baseline and comparison: version, env, and head alone, head with its
// replicates, or a chosen set of captures — as one GET form to /profiling/compare.
import type { ComparePick, SidePick, VersionChoice } from "../compare-sides.ts";
import { html, type Html } from "../html.ts";

function opts(values: string[], current: string, label: (v: string) => string): Html[] {
  return values.map((v) => html`<option value="${v === "" ? "(none)" : v}"${v === current ? html` selected` : ""}>${label(v)}</option>`);
}

function sidePicker(p: "b" | "a", title: string, choices: VersionChoice[], s: SidePick | undefined): Html {
  const versions = [...new Set(choices.map((c) => c.version))];
  const envs = [...new Set(choices.map((c) => c.env))];
  const cur = s ?? { version: versions[0] ?? "", env: envs[0] ?? "", set: "all", ids: [] };
  return html`<fieldset class="row"><legend>${title}</legend>
<div><label for="${p}-version">Version</label><select id="${p}-version" name="${p}_version">${opts(versions, cur.version, (v) => v)}</select></div>
<div><label for="${p}-env">Environment</label><select id="${p}-env" name="${p}_env">${opts(envs, cur.env, (v) => (v === "" ? "(no env)" : v))}</select></div>
<div><label for="${p}-set">Captures</label><select id="${p}-set" name="${p}_set"><option value="all"${cur.set === "all" ? html` selected` : ""}>head and replicates</option><option value="head"${cur.set === "head" ? html` selected` : ""}>head only</option></select></div>
<div><label for="${p}-ids">Or these captures <span class="muted">(request ids, comma-separated)</span></label><input id="${p}-ids" name="${p}_ids" value="${cur.ids.join(",")}" maxlength="4200" pattern="[\\w\\-]+(,[\\w\\-]+)*"></div></fieldset>`;
}

/**
 * With nothing picked yet, the newest version against the one before it (in the same environment
 * when it has one), so that pressing Compare at once compares two versions rather than one with itself.
 */
export function defaultPick(workload: string, choices: VersionChoice[]): ComparePick | null {
  const after = choices[0];
  if (!after) return null;
  const older = choices.filter((c) => c.version !== after.version);
  const before = older.find((c) => c.env === after.env) ?? older[0] ?? after;
  return { workload, before: { version: before.version, env: before.env, set: "all", ids: [] }, after: { version: after.version, env: after.env, set: "all", ids: [] } };
}

export function compareForm(workload: string, choices: VersionChoice[], picked: ComparePick | null, heading = "Compare"): Html {
  if (choices.length < 1) return html``;
  const pick = picked ?? defaultPick(workload, choices);
  return html`<form method="get" action="/profiling/compare" class="compare-form" aria-label="${heading}"><input type="hidden" name="workload" value="${workload}">
${sidePicker("b", "Baseline (before)", choices, pick?.before)}${sidePicker("a", "Comparison (after)", choices, pick?.after)}
<div><button type="submit">Compare</button></div></form>`;
}
