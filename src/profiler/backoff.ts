// Reconnect delays: capped exponential with full jitter (AWS architecture blog's "full jitter"),
// so a control plane restart is not met by every Profiler of a fleet in the same second.
export function backoffDelayMs(attempt: number, baseMs = 500, capMs = 30_000, random = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 20));
  return Math.floor(random() * ceiling);
}
