// How a capture record reads in the app: requester (token or member), state/outcome, time.
import type { CaptureRecord } from "../store/types.ts";
import { html, isoTime, type Html } from "./html.ts";
import { verdictCell, type RowVerdict } from "./list-verdicts.ts";

/** Members are recorded by email, capture tokens by their name (which cannot contain "@" when made in the app). */
export function requesterLabel(requester: string): Html {
  return requester.includes("@") ? html`<span class="tag">member</span> ${requester}` : html`<span class="tag">token</span> ${requester}`;
}

export function stateOf(r: CaptureRecord): string {
  return r.status === "done" ? (r.outcome ?? "done") : r.status;
}

export function stateBadge(r: CaptureRecord): Html {
  const s = stateOf(r);
  return html`<span class="state s-${s}">${s.replace(/_/g, " ")}</span>`;
}

export function recordRow(r: CaptureRecord, v?: RowVerdict): Html {
  return html`<tr>
<td><time datetime="${new Date(r.createdAt).toISOString()}">${isoTime(r.createdAt)}</time></td>
<td><a href="/profiling/captures/${encodeURIComponent(r.requestId)}">${r.workload}</a></td>
<td>${r.version}</td><td>${r.env || html`<span class="muted">(none)</span>`}</td><td>${r.kind}</td>
<td>${requesterLabel(r.requester)}</td><td>${stateBadge(r)}</td>${verdictCell(v)}<td>${r.reason ?? ""}</td></tr>`;
}

export const inFlight = (rs: CaptureRecord[]) => rs.some((r) => r.status !== "done");
