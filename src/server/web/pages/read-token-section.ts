// Settings → Read Tokens: the tokens a pipeline reads its captures' status and verdict with
// (rpread_…; create — the value shown once —, list with workload scope, revoke).
import type { ReadTokenInfo } from "../../store/read-token-store.ts";
import { html, isoTime, type Html } from "../html.ts";
import { shownOnce } from "./shown-once.ts";

export interface ReadTokenView {
  csrf: string;
  manage: boolean;
  tokens: ReadTokenInfo[];
  /** A token just created: shown once, never stored in clear. */
  created?: { name: string; value: string };
}

export function readTokenSection(v: ReadTokenView): Html {
  const csrf = html`<input type="hidden" name="_csrf" value="${v.csrf}">`;
  const created = v.created ? shownOnce("Read token", v.created, "new-read-token") : "";
  const rows = v.tokens.map(
    (t) => html`<tr><td>${t.name}</td><td>${t.workloads ? t.workloads.join(", ") : "every workload"}</td><td>${isoTime(t.createdAt)}</td><td>${t.revokedAt === null ? "active" : `revoked ${isoTime(t.revokedAt)}`}</td>
<td>${v.manage && t.revokedAt === null ? html`<form method="post" action="/settings/read-tokens/revoke" class="inline" data-confirm="Revoke read token ${t.name}? Pipelines using it can no longer read verdicts; this cannot be undone.">${csrf}<input type="hidden" name="name" value="${t.name}"><button type="submit" aria-label="Revoke read token ${t.name}">Revoke</button></form>` : ""}</td></tr>`,
  );
  const form = v.manage
    ? html`<form method="post" action="/settings/read-tokens" class="row">${csrf}<div><label for="read-token-name">Name of the read token</label>
<input id="read-token-name" name="name" required maxlength="64" pattern="[A-Za-z0-9._\\-]{1,64}"></div>
<div><label for="read-token-workloads">Workloads (optional)</label><input id="read-token-workloads" name="workloads" aria-describedby="read-token-help"></div>
<div><button type="submit">Create read token</button></div></form>
<p id="read-token-help" class="muted">Comma-separated workloads it may read; empty: every workload of the organization.</p>`
    : html`<p class="muted">Only an owner or admin can create or revoke read tokens.</p>`;
  return html`<section class="card" aria-labelledby="read-h"><h2 id="read-h">Read Tokens</h2>
<p>A read token (<code>rpread_…</code>) reads the status, outcome, verdict and changed functions of captures (<code>GET /api/profiling/captures/{id}</code>, <code>runner capture --wait</code>) and nothing else: no profile, no flame graph, and it queues nothing.</p>
${created}${form}
${v.tokens.length ? html`<table id="read-tokens"><thead><tr><th scope="col">Name</th><th scope="col">Workloads</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="muted">No read tokens yet.</p>`}
</section>`;
}
