// Boot check: the target list is read strictly (src/profiler/targets.ts); any error refuses.

import { accessSync, constants } from "node:fs";
import { formatProblem, readTargetsFile, type TargetList } from "../targets.ts";
import { deployFix, fail, pass, warn, type Finding } from "./finding.ts";

const FIX = deployFix({
  docker: "mount the corrected file read-only (-v ./targets.json:/etc/runner/targets.json:ro) and check it with `runner targets check FILE`",
  kubernetes: "put the file in a ConfigMap mounted read-only and check it with `runner targets check FILE`",
  systemd: "fix the file named by RUNNER_PROFILE_TARGETS_FILE and check it with `runner targets check FILE`",
});
const COST = "no valid target list: the Profiler would not know which processes it may measure, so it measures none";

export function checkTargets(file: string): { list: TargetList; findings: Finding[] } {
  const list = readTargetsFile(file);
  const findings: Finding[] = list.errors.map((p) => fail("targets", "RUNNER_PROFILE_TARGETS_FILE", `target list ${formatProblem(file, p)}`, FIX, COST));
  for (const p of list.warnings) findings.push(warn("targets", "RUNNER_PROFILE_TARGETS_FILE", `target list ${formatProblem(file, p)}`));
  if (list.errors.length === 0 && writable(file)) {
    findings.push(
      warn(
        "targets",
        "RUNNER_PROFILE_TARGETS_FILE",
        `target list ${file} is writable by the Profiler; mount it read-only`,
        deployFix({ docker: "-v ./targets.json:/etc/runner/targets.json:ro (compose: append :ro)", kubernetes: "mount the ConfigMap with readOnly: true", systemd: "ReadOnlyPaths= the target list, owned by root, mode 0644" }),
        "a compromised Profiler could widen its own target list",
      ),
    );
  }
  if (list.errors.length === 0) findings.unshift(pass("targets", "RUNNER_PROFILE_TARGETS_FILE", `target list ${file}: ${list.targets.length} target${list.targets.length === 1 ? "" : "s"}`));
  return { list, findings };
}

function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
