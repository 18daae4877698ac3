// Response helpers for the app's pages: strict security headers on every page, no caching of
// anything that shows org data or a freshly created token.
import type { Html } from "./html.ts";

// Only our own compiled-in assets; no inline scripts (data travels in type=application/json blocks).
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function page(body: Html, status = 200, extra: Record<string, string> = {}): Response {
  return new Response(body.text, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin",
      "cache-control": "no-store",
      ...extra,
    },
  });
}

export function redirect(location: string, extra: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store", ...extra } });
}

export function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "no-store" } });
}

/** Same-origin check for state-changing requests: a present Origin must be ours. */
export function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true; // non-browser clients; the CSRF token still has to match
  const host = request.headers.get("host");
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
