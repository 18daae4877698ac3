// App sessions: a random 256-bit value in an HttpOnly, SameSite=Strict cookie; the store keeps only
// its SHA-256. The CSRF token of a session is derived from the cookie value (HMAC-like, separate
// label), so it needs no storage, differs per session and cannot be turned back into the cookie.
import type { AppSession } from "../store/user-store.ts";
import type { UserStore } from "../store/user-store.ts";

export const SESSION_COOKIE = "runner_session";
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

const sha256 = (label: string, value: string) => new Bun.CryptoHasher("sha256").update(`${label}\0${value}`).digest("base64url");

export const sessionHash = (cookieValue: string) => sha256("runner-session", cookieValue);
export const csrfToken = (cookieValue: string) => sha256("runner-csrf", cookieValue);

export function newSessionValue(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** The session cookie's value from a Cookie header, or null. */
export function sessionCookie(request: Request): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const v = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(v) ? v : null;
    }
  }
  return null;
}

/** Set-Cookie for a session; Secure whenever the app is served over TLS. */
export function sessionSetCookie(value: string, secure: boolean, maxAgeSec = SESSION_TTL_MS / 1000): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSec}${secure ? "; Secure" : ""}`;
}

export function clearSessionCookie(secure: boolean): string {
  return sessionSetCookie("", secure, 0);
}

export interface SignedIn extends AppSession {
  /** Cookie value, kept only in memory for this request (CSRF derivation, sign-out). */
  cookie: string;
  csrf: string;
}

export async function resolveSession(store: UserStore, request: Request, now: number): Promise<SignedIn | null> {
  const cookie = sessionCookie(request);
  if (!cookie) return null;
  const session = await store.findSession(sessionHash(cookie), now);
  return session ? { ...session, cookie, csrf: csrfToken(cookie) } : null;
}

