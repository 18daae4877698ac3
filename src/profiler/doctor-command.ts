// `runner doctor`: every Profiler deployment requirement as pass / fail / warn, with the fix and
// the cost of each problem. It runs the boot's own checks but changes nothing: no key pair is
// created and the identity lock is not kept. Exit 0 when the Profiler would boot, 1 otherwise.

import { runChecks } from "./boot/checks.ts";
import { deployFix, warn, type Finding } from "./boot/finding.ts";
import { expectedInstrumentation } from "./boot/tracing.ts";
import { checkFlags } from "./flags.ts";

const USAGE = "usage: runner doctor [--json]\n";

export async function doctorCommand(argv: string[]): Promise<number> {
  const stop = checkFlags("doctor", argv, ["--json"], USAGE);
  if (stop !== undefined) return stop;
  const run = await runChecks(process.env, { identity: "inspect" });
  // A requirement no check can see from inside: said once here, never a boot warning.
  run.findings.push(
    warn(
      "restart",
      "restart policy",
      "the restart policy cannot be verified from inside; the reference setup restarts the Profiler unless stopped",
      deployFix({ docker: "--restart unless-stopped (compose: restart: unless-stopped)", kubernetes: "restartPolicy: Always (the default for a DaemonSet/StatefulSet)", systemd: "Restart=always (RestartPreventExitStatus=78: a refused boot needs a fix, not a retry)" }),
    ),
  );
  const failed = run.findings.filter((f) => f.status === "fail").length;
  const warned = run.findings.filter((f) => f.status === "warn").length;
  const instrumentation = expectedInstrumentation(run.probesExpected, run.probesUnavailable);
  if (argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify({ ok: failed === 0, instrumentation, findings: run.findings }, null, 2)}\n`);
  } else {
    process.stdout.write(run.findings.map(formatFinding).join(""));
    process.stdout.write(`\ninstrumentation: ${instrumentation}\n`);
    process.stdout.write(failed === 0 ? `the Profiler would boot (${warned} warning${warned === 1 ? "" : "s"})\n` : `the Profiler would refuse to boot: ${failed} failure${failed === 1 ? "" : "s"}, ${warned} warning${warned === 1 ? "" : "s"}\n`);
  }
  return failed === 0 ? 0 : 1;
}

function formatFinding(f: Finding): string {
  const tag = f.status === "pass" ? "pass" : f.status === "fail" ? "FAIL" : "warn";
  let out = `${tag}  [${f.check}] ${f.message}\n`;
  if (f.status !== "pass") {
    if (f.cost) out += `      cost: ${f.cost}\n`;
    if (f.fix) out += `      fix:  ${f.fix}\n`;
  }
  return out;
}
