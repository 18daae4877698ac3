// `runner doctor`: every Profiler deployment requirement as pass / fail / warn, with the fix and
// the cost of each problem. It runs the boot's own checks but changes nothing: no key pair is
// created and the identity lock is not kept. Exit 0 when the Profiler would boot, 1 otherwise.

import { runChecks } from "./boot/checks.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { STORE_FILE, ownerOnlyFix, widerThanOwner } from "../store-permissions.ts";
import { deployFix, fail, pass, warn, type Finding } from "./boot/finding.ts";
import { expectedInstrumentation } from "./boot/tracing.ts";
import { checkFlags } from "./flags.ts";

const USAGE = `usage: runner doctor [--json]
       runner doctor --data DIR [--json]   check a control plane's SQLite store instead: only its owner may read it
`;

export async function doctorCommand(argv: string[]): Promise<number> {
  const dataAt = argv.indexOf("--data");
  const data = dataAt >= 0 ? argv[dataAt + 1] : undefined;
  const flags = dataAt >= 0 ? [...argv.slice(0, dataAt), ...argv.slice(dataAt + 2)] : argv;
  const stop = checkFlags("doctor", flags, ["--json"], USAGE);
  if (stop !== undefined) return stop;
  if (dataAt >= 0 && (!data || data.startsWith("-"))) {
    process.stderr.write(`runner doctor: --data needs the store's directory\n${USAGE}`);
    return 2;
  }
  if (data !== undefined) return report(storeFindings(data), argv.includes("--json"), storeVerdict);
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
  return report(run.findings, argv.includes("--json"), profilerVerdict, expectedInstrumentation(run.probesExpected, run.probesUnavailable));
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

const profilerVerdict = (failed: number, warned: number) =>
  failed === 0 ? `the Profiler would boot (${plural(warned, "warning")})` : `the Profiler would refuse to boot: ${plural(failed, "failure")}, ${plural(warned, "warning")}`;
const storeVerdict = (failed: number, warned: number) => `the store: ${failed ? `${plural(failed, "failure")}, ` : ""}${plural(warned, "warning")}`;

/** Prints the findings (or their JSON) and the verdict; exit 0 unless one failed. */
function report(findings: Finding[], json: boolean, verdict: (failed: number, warned: number) => string, instrumentation?: string): number {
  const failed = findings.filter((f) => f.status === "fail").length;
  const warned = findings.filter((f) => f.status === "warn").length;
  if (json) {
    process.stdout.write(`${JSON.stringify({ ok: failed === 0, ...(instrumentation ? { instrumentation } : {}), findings }, null, 2)}\n`);
  } else {
    process.stdout.write(findings.map(formatFinding).join(""));
    if (instrumentation) process.stdout.write(`\ninstrumentation: ${instrumentation}\n`);
    process.stdout.write(`${verdict(failed, warned)}\n`);
  }
  return failed === 0 ? 0 : 1;
}

/** A control plane's SQLite store, read from the outside (stat only): who may read it. */
function storeFindings(dir: string): Finding[] {
  const db = join(dir, STORE_FILE);
  if (!existsSync(db)) return [fail("store", dir, `no store at ${db}`, "name the directory given to runner server --data", "nothing to check")];
  const wider = widerThanOwner(dir);
  if (wider.length === 0) return [pass("store", dir, `store ${dir}: only its owner may read it (directory 0700, files 0600)`)];
  const cost = "every local user can read its password, session and token hashes, every profile and every diff";
  return wider.map((w) => warn("store", dir, w, ownerOnlyFix(dir), cost));
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
