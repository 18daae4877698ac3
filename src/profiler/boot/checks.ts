// Runs every boot check in order and collects the findings; shared by the boot (which refuses on
// any failure) and `runner doctor` (which prints them all).

import { collectorPathFrom, type ProfilerConfig } from "../../config/profiler-env.ts";
import { DEFAULT_PROBES, probeSetFrom } from "../../config/probe-set.ts";
import type { ProbeName } from "../../protocol/profile-stream.ts";
import type { Identity } from "../identity.ts";
import type { Target } from "../targets.ts";
import { checkAppArmor } from "./apparmor.ts";
import { checkCollectorCapabilities } from "./capabilities.ts";
import { checkEnv } from "./env.ts";
import { checkExactlyFive, EXTRA_CAPS_OVERRIDE } from "./exactly-five.ts";
import { checkBoundingSet, checkNoNewPrivs, checkNosuid, checkUserNamespace } from "./exec-grant.ts";
import { fail, type Finding } from "./finding.ts";
import { checkIdentity } from "./identity.ts";
import { checkKernel } from "./kernel.ts";
import { checkMemory } from "./memory.ts";
import { readMounts } from "./mountinfo.ts";
import { checkOrchestratorAccess } from "./orchestrator.ts";
import { checkPidNamespace } from "./pid-namespace.ts";
import { readProcStatus, type ProcStatus } from "./proc-status.ts";
import { checkSupervisor } from "./self-capabilities.ts";
import { checkSignature } from "./signature.ts";
import { checkTargets } from "./targets.ts";
import { checkTracing } from "./tracing.ts";

export interface CheckRun {
  findings: Finding[];
  config?: ProfilerConfig;
  targets?: Target[];
  identity?: Identity;
  probesExpected: ProbeName[];
  probesUnavailable: { probe: ProbeName; reason: string }[];
}

export interface CheckOptions {
  /** "boot": create the identity and hold its lock (only when everything else passed).
   *  "inspect": look at the identity volume without creating or keeping anything. */
  identity: "boot" | "inspect";
}

export async function runChecks(env: Record<string, string | undefined>, opts: CheckOptions): Promise<CheckRun> {
  const findings: Finding[] = [];
  const { result, findings: envFindings } = checkEnv(env);
  findings.push(...envFindings);
  const config = result.config;

  // Checks that do not need a complete environment still run, so one boot reports everything.
  let targets: Target[] | undefined;
  const targetsFile = config?.targetsFile ?? (env.RUNNER_PROFILE_TARGETS_FILE || undefined);
  if (targetsFile) {
    const t = checkTargets(targetsFile);
    findings.push(...t.findings);
    if (t.list.errors.length === 0) targets = t.list.targets;
  }

  let status: ProcStatus | undefined;
  try {
    status = readProcStatus();
  } catch (err) {
    findings.push(fail("supervisor", "/proc/self/status", `cannot read /proc/self/status: ${(err as Error).message}`, "mount /proc", "capabilities cannot be verified"));
  }
  if (status) findings.push(...checkSupervisor(status));

  const collectorPath = collectorPathFrom(env);
  const collectorFindings = checkCollectorCapabilities(collectorPath);
  findings.push(...collectorFindings);
  // A collector that is missing or not executable is already the finding; otherwise ask it.
  if (!collectorFindings.some((f) => f.check === "collector" && f.status === "fail")) findings.push(...checkKernel(collectorPath));
  if (status) {
    findings.push(...checkBoundingSet(status));
    findings.push(...checkExactlyFive(status.capBnd, env[EXTRA_CAPS_OVERRIDE]));
    findings.push(...checkNoNewPrivs(status));
  }
  findings.push(...checkUserNamespace());
  findings.push(...checkNosuid(collectorPath));
  findings.push(...checkPidNamespace());
  const chosen = probeSetFrom(env);
  const tracing = checkTracing(readMounts(), "probes" in chosen ? chosen.probes : DEFAULT_PROBES);
  findings.push(...tracing.findings);
  findings.push(...checkAppArmor());
  findings.push(...checkMemory());
  findings.push(...checkOrchestratorAccess());
  findings.push(...checkSignature(env)); // runner and ptop are the signed release bytes

  let identity: Identity | undefined;
  const failed = findings.some((f) => f.status === "fail");
  if (config && (opts.identity === "inspect" || !failed)) {
    const id = await checkIdentity(config.identityDir, config.instanceId, opts.identity === "boot");
    findings.push(...id.findings);
    identity = id.identity;
  }
  return {
    findings,
    ...(config ? { config } : {}),
    ...(targets ? { targets } : {}),
    ...(identity ? { identity } : {}),
    probesExpected: tracing.probesExpected,
    probesUnavailable: tracing.probesUnavailable,
  };
}
