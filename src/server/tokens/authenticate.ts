// Token authentication for the public API: header or `token` query parameter -> principal, or the
// reason for 401. Capture tokens queue captures; read tokens read a capture's status and verdict.
import { CAPTURE_TOKEN_PREFIX, hashToken, READ_TOKEN_PREFIX, tokenProblem, type TokenPrefix } from "../../protocol/token-format.ts";
import type { TokenStore } from "../store/store.ts";
import type { ReadTokenStore, ReadTokenPrincipal } from "../store/read-token-store.ts";
import type { CaptureTokenPrincipal } from "../store/types.ts";
import { sameSecret } from "../same-secret.ts";

export type AuthResult<P = CaptureTokenPrincipal> = { ok: true; principal: P } | { ok: false; error: string };

/** The presented token: `Authorization: Bearer T` wins over `?token=T`. Never logged. */
export function presentedToken(authorization: string | null | undefined, queryToken: string | null | undefined): string | null {
  if (authorization) {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    return m ? m[1]! : "";
  }
  return queryToken ?? null;
}

const KIND: Record<typeof CAPTURE_TOKEN_PREFIX | typeof READ_TOKEN_PREFIX, string> = { rpcap: "capture token", rpread: "read token" };

async function authenticate<P extends { tokenHash: string }>(
  prefix: typeof CAPTURE_TOKEN_PREFIX | typeof READ_TOKEN_PREFIX,
  token: string | null,
  find: (hash: string) => Promise<P | null>,
): Promise<AuthResult<P>> {
  const kind = KIND[prefix];
  if (token === null) return { ok: false, error: `missing ${kind}: send Authorization: Bearer <token> or ?token=<token>` };
  // Shape and checksum first: a mistyped token, or a token of another kind (rpboot_, …), never reaches the store.
  const problem = tokenProblem(token, prefix as TokenPrefix);
  if (problem) return { ok: false, error: `invalid ${kind}: ${problem}` };
  const hash = hashToken(token);
  const principal = await find(hash);
  // The lookup is by hash; the constant-time compare guards against a store whose index
  // comparison is not exact (collation, trailing space) ever accepting a near miss.
  if (!principal || !sameSecret(principal.tokenHash, hash)) return { ok: false, error: `invalid or revoked ${kind}` };
  return { ok: true, principal };
}

export function authenticateCaptureToken(tokens: TokenStore, token: string | null): Promise<AuthResult> {
  return authenticate(CAPTURE_TOKEN_PREFIX, token, (h) => tokens.findCaptureToken(h));
}

export function authenticateReadToken(tokens: ReadTokenStore, token: string | null): Promise<AuthResult<ReadTokenPrincipal>> {
  return authenticate(READ_TOKEN_PREFIX, token, (h) => tokens.findReadToken(h));
}
