// Sign-in and sign-out. A failed sign-in never says whether the org or the email exists.
import { Elysia } from "elysia";
import { normaliseEmail } from "../users/create-user.ts";
import { prepareDummyHash, verifyPassword } from "../users/password.ts";
import { SignInThrottle } from "../users/sign-in-throttle.ts";
import { clearSessionCookie, newSessionValue, sessionCookie, sessionHash, sessionSetCookie, SESSION_TTL_MS } from "../users/session.ts";
import { formSession, isSecure, type WebDeps } from "./context.ts";
import { field, readForm } from "./form.ts";
import { loginPage } from "./pages/login.ts";
import { page, plain, redirect, sameOrigin } from "./respond.ts";

/** Only local paths: `next` must not send a member to another site after sign-in. */
export function safeNext(next: string | null): string {
  return next && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) && !next.startsWith("/login") ? next : "/profiling";
}

export function authRoutes(deps: WebDeps, throttle = new SignInThrottle(deps.store)) {
  void prepareDummyHash();
  return new Elysia()
    .get("/login", ({ request }) => page(loginPage({ next: safeNext(new URL(request.url).searchParams.get("next")) })))
    .post(
      "/login",
      async ({ request }) => {
        if (!sameOrigin(request)) return plain(403, "cross-origin sign-in refused");
        const f = await readForm(request);
        if (!f.ok) return plain(f.status, f.error);
        const org = field(f.form, "org");
        const email = normaliseEmail(f.form.get("email") ?? "");
        const password = f.form.get("password") ?? "";
        const next = safeNext(f.form.get("next"));
        const now = deps.now();
        const wait = await throttle.claim(org, email, now);
        if (wait > 0) {
          deps.logger.info({ org }, "app sign-in throttled");
          return page(loginPage({ error: `Too many failed sign-ins for this account; try again in ${wait} s.`, org, email, next }), 429, { "retry-after": String(wait) });
        }
        const user = org && email ? await deps.store.findUserCredentials(org, email) : null;
        const ok = await verifyPassword(password, user?.passwordHash ?? null);
        if (!ok || !user) {
          deps.logger.info({ org }, "app sign-in refused");
          return page(loginPage({ error: "Organization, email or password is wrong.", org, email, next }), 401);
        }
        await throttle.succeed(org, email);
        const value = newSessionValue();
        await deps.store.createSession(user.id, sessionHash(value), now + SESSION_TTL_MS, now);
        await deps.store.pruneSessions(now);
        deps.logger.info({ org, user_id: user.id }, "app sign-in");
        return redirect(next, { "set-cookie": sessionSetCookie(value, isSecure(request)) });
      },
      { parse: "none" },
    )
    .post(
      "/logout",
      async ({ request }) => {
        const r = await formSession(deps, request);
        if (r instanceof Response) {
          // Signing out never needs to fail: without a valid session there is nothing to end.
          if (r.status === 401 || !sessionCookie(request)) return redirect("/login", { "set-cookie": clearSessionCookie(isSecure(request)) });
          return r;
        }
        await deps.store.deleteSession(sessionHash(r.session.cookie));
        return redirect("/login", { "set-cookie": clearSessionCookie(isSecure(request)) });
      },
      { parse: "none" },
    );
}
