// Settings: the Profiler section (opt-in, enrolled Profilers: connected or offline, last seen) and Profiler Capture
// Tokens (create — the value shown once —, list, revoke). Members see them; only owner/admin act.
import type { InstanceSummary } from "../../store/profiler-store.ts";
import type { SignedIn } from "../../users/session.ts";
import { canManageSettings } from "../../users/roles.ts";
import { html, isoTime, type Html } from "../html.ts";
import { layout } from "../layout.ts";
import type { ReadTokenInfo } from "../../store/read-token-store.ts";
import { readTokenSection } from "./read-token-section.ts";
import { storageSection } from "./storage-section.ts";
import type { RetentionPolicy, StorageUsage } from "../../store/retention-store.ts";
import { shownOnce } from "./shown-once.ts";

export interface TokenRow {
  name: string;
  createdAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

export interface SettingsView {
  session: SignedIn;
  profilerEnabled: boolean;
  instances: InstanceSummary[];
  /** The instances whose tunnel is up now; the others are offline. */
  connected: ReadonlySet<string>;
  tokens: TokenRow[];
  message?: Html;
  /** A token just created: shown once, never stored in clear. */
  created?: { name: string; value: string };
  readTokens: ReadTokenInfo[];
  storage: StorageUsage;
  retention: RetentionPolicy | null;
  createdRead?: { name: string; value: string };
}

function profilerSection(v: SettingsView, manage: boolean): Html {
  const csrf = html`<input type="hidden" name="_csrf" value="${v.session.csrf}">`;
  const toggle = manage
    ? html`<form method="post" action="/settings/profiler"${v.profilerEnabled ? html` data-confirm="Disable the Profiler for ${v.session.user.orgName}? Enrolment and capture requests will be refused until it is enabled again."` : ""}>${csrf}<input type="hidden" name="enabled" value="${v.profilerEnabled ? "0" : "1"}">
<button type="submit" id="profiler-toggle">${v.profilerEnabled ? "Disable the Profiler" : "Enable the Profiler"}</button></form>`
    : html`<p class="muted">Only an owner or admin can enable or disable the Profiler.</p>`;
  const rows = v.instances.map(
    (i) => html`<tr><td><code>${i.instanceId}</code></td><td>${i.artifactClass}</td><td class="presence">${v.connected.has(i.instanceId) ? html`<span class="state s-connected">connected</span>` : html`<span class="state s-offline">offline</span>`}</td><td>${isoTime(i.enrolledAt)}</td><td>${isoTime(i.lastSeenAt)}</td></tr>`,
  );
  return html`<section class="card" aria-labelledby="prof-h"><h2 id="prof-h">Profiler</h2>
<p>The Profiler is <strong id="profiler-state">${v.profilerEnabled ? "enabled" : "disabled"}</strong> for ${v.session.user.orgName}. While it is disabled, enrolment and capture requests are refused with 403.</p>
${toggle}
<h3>Enrolled Profilers</h3>
${v.instances.length ? html`<table><thead><tr><th scope="col">Instance</th><th scope="col">Class</th><th scope="col">Tunnel</th><th scope="col">Enrolled</th><th scope="col">Last seen</th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="muted">No Profiler has enrolled yet.</p>`}
</section>`;
}

function tokenSection(v: SettingsView, manage: boolean): Html {
  const csrf = html`<input type="hidden" name="_csrf" value="${v.session.csrf}">`;
  const created = v.created ? shownOnce("Capture token", v.created, "new-token") : "";
  const rows = v.tokens.map(
    (t) => html`<tr><td>${t.name}</td><td>${isoTime(t.createdAt)}</td><td>${isoTime(t.lastUsedAt)}</td><td>${t.revokedAt === null ? "active" : `revoked ${isoTime(t.revokedAt)}`}</td>
<td>${manage && t.revokedAt === null ? html`<form method="post" action="/settings/tokens/revoke" class="inline" data-confirm="Revoke capture token ${t.name}? Pipelines using it can no longer queue captures; this cannot be undone.">${csrf}<input type="hidden" name="name" value="${t.name}"><button type="submit" aria-label="Revoke token ${t.name}">Revoke</button></form>` : ""}</td></tr>`,
  );
  const form = manage
    ? html`<form method="post" action="/settings/tokens" class="row">${csrf}<div><label for="token-name">Token name</label>
<input id="token-name" name="name" required maxlength="64" pattern="[A-Za-z0-9._\\-]{1,64}" aria-describedby="token-name-help"></div><div><button type="submit">Create token</button></div></form>
<p id="token-name-help" class="muted">Letters, digits, dot, dash, underscore. The name is recorded as the requester of every capture the token queues; use one token per pipeline.</p>`
    : html`<p class="muted">Only an owner or admin can create or revoke capture tokens.</p>`;
  return html`<section class="card" aria-labelledby="tok-h"><h2 id="tok-h">Profiler Capture Tokens</h2>
<p>A capture token (<code>rpcap_…</code>) can only queue capture requests; it reads nothing.</p>
${created}${form}
${v.tokens.length ? html`<table id="tokens"><thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="muted">No capture tokens yet.</p>`}
</section>`;
}

export function settingsPage(v: SettingsView): Html {
  const manage = canManageSettings(v.session.user.role);
  const body = html`<h1>Settings</h1>${v.message ?? ""}${profilerSection(v, manage)}${tokenSection(v, manage)}${readTokenSection({ csrf: v.session.csrf, manage, tokens: v.readTokens, created: v.createdRead })}${storageSection(v.storage, v.retention)}`;
  return layout("Settings", body, v.session, "settings");
}
