// A token just created, on Settings (capture tokens, read tokens): its value, shown this once.
import { html, type Html } from "../html.ts";

/** A token just created: its value, shown this once with a copy button. */
export function shownOnce(kind: string, created: { name: string; value: string }, id: string): Html {
  return html`<div class="card secret" role="status"><p>${kind} <strong>${created.name}</strong> created. It is shown once: copy it now.</p>
<label for="${id}">Token value</label><div class="row"><input id="${id}" readonly value="${created.value}" class="mono" size="60">
<button type="button" class="copy" data-copy="${id}">Copy</button><span class="copied muted" aria-live="polite"></span></div></div>`;
}
