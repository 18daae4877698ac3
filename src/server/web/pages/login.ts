// Sign-in page: organization, email, password.
import { html, type Html } from "../html.ts";
import { flash, layout } from "../layout.ts";

export function loginPage(opts: { error?: string; org?: string; email?: string; next?: string }): Html {
  const body = html`<section class="narrow"><h1>Sign in</h1>
${opts.error ? flash("error", opts.error) : ""}
<form method="post" action="/login" class="stack">
<input type="hidden" name="next" value="${opts.next ?? "/profiling"}">
<label for="org">Organization</label><input id="org" name="org" required autocomplete="organization" value="${opts.org ?? ""}">
<label for="email">Email</label><input id="email" name="email" type="email" required autocomplete="username" value="${opts.email ?? ""}">
<label for="password">Password</label><input id="password" name="password" type="password" required autocomplete="current-password">
<button type="submit">Sign in</button></form></section>`;
  return layout("Sign in", body, null);
}
