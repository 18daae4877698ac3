// What every app handler needs: the dependencies of the capture API (same store, same rate limit)
// and the signed-in member, resolved from the session cookie and nothing else — a capture token in
// an Authorization header or query string never opens a page.
import type { QueueCaptureDeps } from "../captures/queue-capture.ts";
import type { Presence } from "../dispatch/presence.ts";
import { resolveSession, type SignedIn } from "../users/session.ts";
import { sameSecret } from "../same-secret.ts";
import { readForm } from "./form.ts";
import { plain, redirect, sameOrigin } from "./respond.ts";

export type WebDeps = QueueCaptureDeps & { presence: Presence };

/**
 * A route behind one of the checks below (pageSession, fetchSession, formSession, or a check built
 * on one, like Settings' manager): the check's refusal (a redirect to sign-in, a 401, a
 * 403) is the answer as it is; otherwise the handler runs with what the check resolved.
 */
export function guarded<S, P = Record<string, string>>(
  deps: WebDeps,
  check: (deps: WebDeps, request: Request) => Promise<S | Response>,
  handler: (s: S, request: Request, params: P) => Response | Promise<Response>,
): (ctx: { request: Request; params: P }) => Promise<Response> {
  return async ({ request, params }) => {
    const s = await check(deps, request);
    return s instanceof Response ? s : handler(s, request, params);
  };
}

export const isSecure = (request: Request) => new URL(request.url).protocol === "https:";

/** GET pages: the member, or a redirect to sign-in that comes back here. */
export async function pageSession(deps: WebDeps, request: Request): Promise<SignedIn | Response> {
  const s = await resolveSession(deps.store, request, deps.now());
  if (s) return s;
  const u = new URL(request.url);
  return redirect(`/login?next=${encodeURIComponent(u.pathname + u.search)}`);
}

/** Fetches from the page's own script: 401 rather than a redirect. */
export async function fetchSession(deps: WebDeps, request: Request): Promise<SignedIn | Response> {
  return (await resolveSession(deps.store, request, deps.now())) ?? plain(401, "sign in first");
}

/**
 * State-changing forms: signed in, same origin, and the session's CSRF token in `_csrf`
 * (SameSite=Strict already keeps the cookie off cross-site posts; this is the second lock).
 */
export async function formSession(deps: WebDeps, request: Request): Promise<{ session: SignedIn; form: URLSearchParams } | Response> {
  const s = await resolveSession(deps.store, request, deps.now());
  if (!s) return plain(401, "sign in first");
  if (!sameOrigin(request)) return plain(403, "cross-origin form submission refused");
  const f = await readForm(request);
  if (!f.ok) return plain(f.status, f.error);
  const token = f.form.get("_csrf") ?? "";
  if (!sameSecret(token, s.csrf)) return plain(403, "the form expired or did not come from this app; reload the page and try again");
  return { session: s, form: f.form };
}
