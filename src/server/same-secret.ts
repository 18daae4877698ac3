// Constant-time equality for secrets and their hashes (CSRF tokens, token hashes). Unequal lengths
// are unequal without a compare: timingSafeEqual throws on them, which would turn a near miss
// into a 500 instead of a refusal. Lengths are not secret here (fixed-size hex digests, tokens of
// one format).
import { timingSafeEqual } from "node:crypto";

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
