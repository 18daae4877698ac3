// `runner profiler [--boot-only]`: boot (every check, refusing with every reason), log the boot
// line, then hand over to the supervisor. --boot-only stops after the boot line.

import { createLogger } from "../log.ts";
import { boot, BootRefusal } from "./boot/boot.ts";
import type { BootResult } from "./boot/boot-result.ts";
import { bootLineFields } from "./boot/boot-line.ts";
import { formatRefusal } from "./boot/finding.ts";
import { checkFlags } from "./flags.ts";
import { holdRefusal } from "./refusal-hold.ts";

/** Exit status of a refused boot (EX_CONFIG): systemd can be told not to restart on it. */
export const EXIT_REFUSED = 78;

const USAGE = "usage: runner profiler [--boot-only]\n  --boot-only  run every boot check, print the boot line and exit\n";

export async function profilerCommand(argv: string[]): Promise<number> {
  const stop = checkFlags("profiler", argv, ["--boot-only"], USAGE);
  if (stop !== undefined) return stop;
  const bootOnly = argv.includes("--boot-only");
  // One-shot with --boot-only: the boot line must be written before the process exits.
  const log = createLogger("profiler", undefined, { sync: true });
  let result: BootResult;
  try {
    result = await boot(process.env);
  } catch (err) {
    if (err instanceof BootRefusal) {
      process.stderr.write(`runner profiler: boot refused, ${err.refusals.length} problem${err.refusals.length === 1 ? "" : "s"}:\n`);
      for (const r of err.refusals) process.stderr.write(`${formatRefusal(r)}\n`);
      if (!bootOnly) await holdRefusal(process.env.RUNNER_REFUSED_BOOT_HOLD_SECONDS);
      return EXIT_REFUSED;
    }
    throw err;
  }
  for (const w of result.warnings) log.warn({ check: w.check, subject: w.subject, ...(w.fix ? { fix: w.fix } : {}), ...(w.cost ? { cost: w.cost } : {}) }, w.message);
  log.info(bootLineFields(result), "profiler booted");
  if (bootOnly) {
    result.identity.release();
    return 0;
  }
  // Imported lazily: --boot-only never loads the enrolment, tunnel and capture code.
  const { runSupervisor } = await import("./supervisor.ts");
  return await runSupervisor(result);
}
