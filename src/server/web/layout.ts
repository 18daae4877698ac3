// The frame of every page: skip link, navigation with the current page marked, sign-out form.
import { html, type Html } from "./html.ts";
import type { SignedIn } from "../users/session.ts";
import { assetUrl } from "./assets/catalog.ts";

export type Section = "profiling" | "settings";

/** `refreshSeconds`: a page whose subject is still changing (a capture in flight) reloads itself. */
export function layout(title: string, body: Html, session: SignedIn | null, section?: Section, refreshSeconds?: number): Html {
  const nav = session
    ? html`<nav aria-label="Main"><a class="brand" href="/profiling">runner</a>
<a href="/profiling"${section === "profiling" ? html` aria-current="page"` : ""}>Profiling</a>
<a href="/settings"${section === "settings" ? html` aria-current="page"` : ""}>Settings</a>
<span class="who">${session.user.email} · ${session.user.role} · ${session.user.orgName}</span>
<form method="post" action="/logout" class="inline"><input type="hidden" name="_csrf" value="${session.csrf}"><button type="submit">Sign out</button></form></nav>`
    : html`<nav aria-label="Main"><span class="brand">runner</span></nav>`;
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${refreshSeconds ? html`<meta http-equiv="refresh" content="${String(refreshSeconds)}">` : ""}<title>${title} · runner</title><link rel="icon" type="image/svg+xml" href="${assetUrl("icon.svg")}"><link rel="stylesheet" href="${assetUrl("app.css")}"><script src="${assetUrl("app.js")}" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a><header>${nav}</header><main id="main" tabindex="-1">${body}</main></body></html>`;
}

/** A status line for the outcome of a form: role=status for success, role=alert for refusals. */
export function flash(kind: "ok" | "error", text: string | Html): Html {
  return kind === "ok" ? html`<p class="flash ok" role="status">${text}</p>` : html`<p class="flash error" role="alert">${text}</p>`;
}
