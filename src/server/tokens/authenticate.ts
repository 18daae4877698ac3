// Capture-token authentication: header or `token` query parameter -> principal, or the reason for 401.
import { CAPTURE_TOKEN_PREFIX, hashToken, isWellFormedToken } from "../../protocol/token-format.ts";
import type { TokenStore } from "../store/store.ts";
import type { CaptureTokenPrincipal } from "../store/types.ts";
import { sameSecret } from "../same-secret.ts";

export type AuthResult = { ok: true; principal: CaptureTokenPrincipal } | { ok: false; error: string };

/** The presented token: `Authorization: Bearer T` wins over `?token=T`. Never logged. */
export function presentedToken(authorization: string | null | undefined, queryToken: string | null | undefined): string | null {
  if (authorization) {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    return m ? m[1]! : "";
  }
  return queryToken ?? null;
}

export async function authenticateCaptureToken(tokens: TokenStore, token: string | null): Promise<AuthResult> {
  if (token === null) {
    return { ok: false, error: "missing capture token: send Authorization: Bearer <token> or ?token=<token>" };
  }
  // Shape and checksum first: a mistyped token, or a token of another kind (rpboot_, …), never reaches the store.
  if (!isWellFormedToken(token, CAPTURE_TOKEN_PREFIX)) {
    return { ok: false, error: `invalid capture token: expected an ${CAPTURE_TOKEN_PREFIX}_ token` };
  }
  const hash = hashToken(token);
  const principal = await tokens.findCaptureToken(hash);
  // The lookup is by hash; the constant-time compare guards against a store whose index
  // comparison is not exact (collation, trailing space) ever accepting a near miss.
  if (!principal || !sameSecret(principal.tokenHash, hash)) {
    return { ok: false, error: "invalid or revoked capture token" };
  }
  return { ok: true, principal };
}
