// A test or block that cannot run here says why, in its name: `npm test` prints every skipped
// test with that name, so a skip is never silent. `reason` is null when the test can run.
import { describe, test } from "bun:test";

export const SKIP_MARK = " — skipped: ";

/** The first reason that applies, or null: `whyNot([!root, "needs root"], [!cc, "needs cc"])`. */
export function whyNot(...checks: Array<[boolean, string]>): string | null {
  return checks.find(([applies]) => applies)?.[1] ?? null;
}

const named = (name: string, reason: string | null) => (reason === null ? name : `${name}${SKIP_MARK}${reason}`);

/** describe.skipIf with its reason. */
export function describeUnless(reason: string | null) {
  return (name: string, fn: () => void) => describe.skipIf(reason !== null)(named(name, reason), fn);
}

/** test.skipIf with its reason. */
export function testUnless(reason: string | null) {
  return (name: string, fn: () => unknown, timeout?: number) => test.skipIf(reason !== null)(named(name, reason), fn as () => void, timeout);
}
