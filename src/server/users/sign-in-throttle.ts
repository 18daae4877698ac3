// Sign-in attempts per (org, email): each attempt is claimed in the store before its password is
// hashed, and the claim is refused once `limit` attempts sit in the last `windowMs`. Claiming is
// one atomic step (check and count together), so attempts in flight at once cannot all pass the
// check before any is counted: 300 concurrent guesses get `limit` hashes, not 300. An attempt counts
// as a failure until it succeeds, which forgives the account. The attempts live in the store, so
// replicas behind one address share the count: a guesser gets `limit` tries per window in all.
import type { UserStore } from "../store/user-store.ts";

type AttemptStore = Pick<UserStore, "claimSignInAttempt" | "clearSignInFailures">;

export class SignInThrottle {
  constructor(
    private readonly store: AttemptStore,
    private readonly limit = 10,
    private readonly windowMs = 15 * 60 * 1000,
  ) {}

  /**
   * Claims one attempt: 0 when it may go ahead (it is now counted), otherwise the seconds until
   * another attempt is allowed (nothing is counted).
   */
  async claim(org: string, email: string, now: number): Promise<number> {
    const freesAt = await this.store.claimSignInAttempt(org, email.toLowerCase(), now, now - this.windowMs, this.limit);
    if (freesAt === null) return 0;
    return Math.max(1, Math.ceil((freesAt + this.windowMs - now) / 1000));
  }

  async succeed(org: string, email: string): Promise<void> {
    await this.store.clearSignInFailures(org, email.toLowerCase());
  }
}
