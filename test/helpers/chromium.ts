// Debian's Chromium driven by playwright-core, for the app's browser tests. CI installs it
// (.ci/run); elsewhere those tests skip unless RUNNER_REQUIRE_LIVE=1, which makes its absence an error.
import { existsSync } from "node:fs";

export const CHROMIUM = process.env.RUNNER_CHROMIUM ?? "/usr/bin/chromium";
export const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

/** Why a browser test cannot run here, or null. */
export function chromiumMissing(): string | null {
  if (existsSync(CHROMIUM)) return null;
  if (process.env.RUNNER_REQUIRE_LIVE === "1") throw new Error(`RUNNER_REQUIRE_LIVE=1 but ${CHROMIUM} is missing (apt-get install chromium)`);
  return `Chromium is not installed at ${CHROMIUM} (Debian: chromium)`;
}
