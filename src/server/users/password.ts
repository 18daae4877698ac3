// Member passwords: argon2id through Bun.password. Verification of an unknown member still pays for
// one hash, so response time does not tell which emails exist.
// OWASP's argon2id setting (19 MiB, 2 passes, 1 lane): Bun's default (64 MiB) took over a second
// per sign-in on a loaded 2-core control plane, which turns the sign-in form into a DoS lever.
const ARGON2 = { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 } as const;
let dummyHash: Promise<string> | undefined;

/**
 * The hash an unknown member is verified against, made on first call rather than at import
 * (`runner admin` imports this module and never verifies). The app calls it when it is built,
 * so the first sign-in of an unknown email costs no more than any other.
 */
export function prepareDummyHash(): Promise<string> {
  return (dummyHash ??= Bun.password.hash("runner: no such member", ARGON2));
}

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, ARGON2);
}

/** True only when `hash` exists and matches; a missing member costs the same as a wrong password. */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  if (hash === null) {
    await Bun.password.verify(password, await prepareDummyHash());
    return false;
  }
  return Bun.password.verify(password, hash);
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `the password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `the password must have at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}
