// How tests start the `runner` executable: the compiled binary when it is built (what users run),
// otherwise the sources through bun. RUNNER_BIN overrides both (e.g. a private build path).
import { existsSync } from "node:fs";
import { resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dir, "../..");

export function runnerCommand(): string[] {
  if (process.env.RUNNER_BIN) return [process.env.RUNNER_BIN];
  const compiled = resolve(REPO_ROOT, "dist/runner");
  if (existsSync(compiled) && process.env.RUNNER_TEST_FROM_SOURCE !== "1") return [compiled];
  return [process.execPath, resolve(REPO_ROOT, "src/cli.ts")];
}

/** Why a live test is skipped when liveAvailable() is false. */
export const NOT_ROOT = "needs root: live tests load BPF programs and run workloads as another user";

/** Live tests need root and a kernel with BPF; on CI (RUNNER_REQUIRE_LIVE=1) their absence is a failure. */
export function liveAvailable(): boolean {
  const isRoot = process.getuid?.() === 0;
  if (!isRoot && process.env.RUNNER_REQUIRE_LIVE === "1") throw new Error("RUNNER_REQUIRE_LIVE=1 but not running as root");
  return isRoot;
}
