// Failed sign-ins per (org, email): after `limit` failures in `windowMs`, further attempts for that
// member are refused (429) without hashing anything until the oldest failure ages out. The
// failures live in the store, so replicas behind one address share the count: a guesser gets
// `limit` tries per window in all, not per replica. (Attempts racing on different replicas can
// each pass the check before either records its failure: the overshoot is bounded by how many
// are in flight at once, not by the replica count times the limit.)
import type { UserStore } from "../store/user-store.ts";

type FailureStore = Pick<UserStore, "recordSignInFailure" | "signInFailures" | "clearSignInFailures">;

export class SignInThrottle {
  constructor(
    private readonly store: FailureStore,
    private readonly limit = 10,
    private readonly windowMs = 15 * 60 * 1000,
  ) {}

  /** Seconds until another attempt is allowed, or 0 when it is allowed now. */
  async retryAfter(org: string, email: string, now: number): Promise<number> {
    const list = await this.store.signInFailures(org, email.toLowerCase(), now - this.windowMs);
    if (list.length < this.limit) return 0;
    return Math.max(1, Math.ceil((list[list.length - this.limit]! + this.windowMs - now) / 1000));
  }

  async fail(org: string, email: string, now: number): Promise<void> {
    await this.store.recordSignInFailure(org, email.toLowerCase(), now, now - this.windowMs);
  }

  async succeed(org: string, email: string): Promise<void> {
    await this.store.clearSignInFailures(org, email.toLowerCase());
  }
}
