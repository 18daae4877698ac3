// What a read token's name and workload scope may be, for `runner admin` and Settings alike.
const TOKEN_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** Why `name` is not a token name; null when it is one. */
export function checkTokenName(name: string): string | null {
  return TOKEN_NAME.test(name) ? null : "a token name is 1 to 64 letters, digits, dots, dashes or underscores";
}

/** Why this workload scope is refused; null when it is fine (an empty list: every workload). */
export function checkWorkloadScope(workloads: string[]): string | null {
  if (workloads.length > 100) return "a read token is scoped to at most 100 workloads";
  // The same rule as the capture request's workload (capture-request.ts): non-empty, at most 256.
  const bad = workloads.find((w) => w.length === 0 || w.length > 256 || /[\u0000-\u001f\u007f]/.test(w));
  return bad === undefined ? null : `a workload is 1 to 256 characters with no control character (got ${JSON.stringify(bad)})`;
}
