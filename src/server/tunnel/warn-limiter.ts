// Warnings a remote peer can cause, at most `perMinute` of each kind a minute: a flood of refused
// handshakes or bad frames must not turn into a flood of log lines. The first line after a quiet
// spell says how many were left out.
import type { Logger } from "../../log.ts";

export class WarnLimiter {
  private readonly kinds = new Map<string, { since: number; logged: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly perMinute = 10,
    private readonly now: () => number = Date.now,
  ) {}

  /** `kind` must be one of the caller's fixed messages, never a string a client chose. */
  warn(kind: string, fields: Record<string, unknown> = {}): void {
    const now = this.now();
    let k = this.kinds.get(kind);
    if (!k || now - k.since >= 60_000) {
      const suppressed = k?.suppressed ?? 0;
      k = { since: now, logged: 0, suppressed: 0 };
      this.kinds.set(kind, k);
      if (suppressed > 0) fields = { ...fields, suppressed_last_minute: suppressed };
    }
    if (k.logged >= this.perMinute) {
      k.suppressed++;
      return;
    }
    k.logged++;
    this.logger.warn(fields, kind);
  }
}

/** A client-supplied value as a log field: a string of at most `max` characters, whatever it was. */
export function clipForLog(value: unknown, max = 80): string {
  if (typeof value !== "string") return `(${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value})`;
  return value.length <= max ? value : `${value.slice(0, max)}… (${value.length} chars)`;
}
