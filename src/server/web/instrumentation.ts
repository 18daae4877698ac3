// The capture screen's instrumentation declaration: "fully instrumented" or "N of M probes", then
// every collector that did not attach (or attached but never ran), why, and what fixes it.
import type { RecordInstrumentation } from "../store/types.ts";
import { html, type Html } from "./html.ts";
import { isFullyInstrumented, probeCoverage } from "../../protocol/instrumentation-statement.ts";
import { NEVER_RAN } from "../../protocol/profile-stream.ts";

/** The fix for a known cause; the collector's own reason already carries one when it says "fix:". */
export function fixFor(reason: string): string | null {
  if (/fix:/i.test(reason)) return null;
  if (/tracefs|tracing|debugfs|\/sys\/kernel\/debug/i.test(reason)) {
    return "mount the host's /sys/kernel/tracing and /sys/kernel/debug into the Profiler container";
  }
  if (/permission denied|EACCES|EPERM|apparmor|ptrace|\/proc\/\d*[^ ]*\/(ns|exe)/i.test(reason)) {
    return "load the Profiler's AppArmor profile (the default container profile plus `ptrace (read) peer=unconfined`) on the host and reference it in the container or pod security context; do not run unconfined";
  }
  return null;
}

export function instrumentationBlock(i: RecordInstrumentation | null): Html {
  if (!i) return html`<section class="card" aria-labelledby="instr-h"><h2 id="instr-h">Instrumentation</h2><p class="muted">Not run yet: no capture has happened for this request.</p></section>`;
  const full = isFullyInstrumented(i.probes_attached, i.probes_requested, i.missing.length);
  const items = i.missing.map((m) => {
    const fix = fixFor(m.reason);
    // ptop's reason for a probe that attached but never ran says so itself ("attached but never ran: …").
    const what = m.reason.startsWith(NEVER_RAN) ? html`${m.reason}` : html`did not attach: ${m.reason}`;
    return html`<li><strong>${m.probe}</strong> ${what}${fix ? html`<br><span class="fix">Fix: ${fix}</span>` : ""}</li>`;
  });
  return html`<section class="card" aria-labelledby="instr-h"><h2 id="instr-h">Instrumentation</h2>
<p class="instr ${full ? "full" : "partial"}" id="instrumentation">${probeCoverage(i.probes_attached, i.probes_requested, i.missing.length)}</p>
${full ? "" : html`<ul class="missing">${items}</ul><p class="muted">The axes of these probes do not exist in this capture; they are shown as absent and are never compared as if they were zero.</p>`}
${(i.incomplete ?? []).map((x) => html`<p class="instr partial">${x.axis}: ${(x.share * 100).toFixed(0)}% of the stacks could not be walked to their root (a [truncated] frame marks them): callers and inclusive figures are incomplete.</p>`)}
${(i.lost ?? []).map((x) => html`<p class="instr partial">${x.axis}: ${(x.share * 100).toFixed(0)}% of the samples taken are in no stack (the collector's buffers were full): this capture holds fewer samples than were taken, and its per-second figures read low.</p>`)}
${i.notes?.length ? html`<h3 id="collector-notes-h">The collector's notes</h3><ul class="collector-notes" aria-labelledby="collector-notes-h">${i.notes.map((n) => html`<li>${n}</li>`)}</ul>` : ""}
</section>`;
}
