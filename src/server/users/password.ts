// Member passwords: argon2id through Bun.password. Verification of an unknown member still pays for
// one hash, so response time does not tell which emails exist.
const DUMMY_HASH = Bun.password.hash("runner: no such member", { algorithm: "argon2id" });

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

/** True only when `hash` exists and matches; a missing member costs the same as a wrong password. */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  if (hash === null) {
    await Bun.password.verify(password, await DUMMY_HASH);
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
