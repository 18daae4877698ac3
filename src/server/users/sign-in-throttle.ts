// Failed sign-ins per (org, email): after `limit` failures in `windowMs`, further attempts for that
// member are refused (429) without hashing anything until the oldest failure ages out. In memory,
// per process: it slows guessing against one account; it is not a distributed limiter.
export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit = 10,
    private readonly windowMs = 15 * 60 * 1000,
  ) {}

  private key(org: string, email: string): string {
    return `${org}\0${email.toLowerCase()}`;
  }

  /** Seconds until another attempt is allowed, or 0 when it is allowed now. */
  retryAfter(org: string, email: string, now: number): number {
    const list = (this.failures.get(this.key(org, email)) ?? []).filter((t) => t > now - this.windowMs);
    if (list.length < this.limit) return 0;
    return Math.max(1, Math.ceil((list[0]! + this.windowMs - now) / 1000));
  }

  fail(org: string, email: string, now: number): void {
    const k = this.key(org, email);
    const list = (this.failures.get(k) ?? []).filter((t) => t > now - this.windowMs);
    list.push(now);
    this.failures.set(k, list);
    // Bounded memory: drop keys whose failures all aged out once the map grows.
    if (this.failures.size > 10_000) {
      for (const [key, ts] of this.failures) if (ts.every((t) => t <= now - this.windowMs)) this.failures.delete(key);
    }
  }

  succeed(org: string, email: string): void {
    this.failures.delete(this.key(org, email));
  }
}
