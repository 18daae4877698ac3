// The Profiler boot: every check runs; any failure refuses the boot with every reason at once.
// There is no path where the Profiler comes up while it would capture blind.

import type { BootResult } from "./boot-result.ts";
import { runChecks } from "./checks.ts";
import { BootRefusal, toRefusal } from "./finding.ts";
import { expectedInstrumentation } from "./tracing.ts";

export { BootRefusal } from "./finding.ts";
export type { BootResult } from "./boot-result.ts";

/** Reserved: no option can skip or soften a check. */
export type BootOptions = Record<string, never>;

export async function boot(env: Record<string, string | undefined> = process.env, _opts?: BootOptions): Promise<BootResult> {
  const run = await runChecks(env, { identity: "boot" });
  const failures = run.findings.filter((f) => f.status === "fail");
  if (failures.length > 0 || !run.config || !run.targets || !run.identity) {
    run.identity?.release();
    throw new BootRefusal(failures.map(toRefusal));
  }
  return {
    config: run.config,
    targets: run.targets,
    identity: run.identity,
    probesExpected: run.probesExpected,
    probesUnavailable: run.probesUnavailable,
    instrumentation: expectedInstrumentation(run.probesExpected, run.probesUnavailable),
    warnings: run.findings.filter((f) => f.status === "warn"),
  };
}
