// Boot check: the RUNNER_* environment (validation lives in src/config/profiler-env.ts).

import { readProfilerEnv, type EnvResult } from "../../config/profiler-env.ts";
import { deployFix, fail, pass, warn, type Finding } from "./finding.ts";

const COST: Record<string, string> = {
  RUNNER_TENANT: "the Profiler cannot say which tenant it enrols into",
  RUNNER_INSTANCE_ID: "the Profiler has no instance identity: enrolment and the identity volume cannot be tied to this replica",
  RUNNER_TUNNEL_URL: "no tunnel to the control plane: no capture request can reach this Profiler",
  RUNNER_ENROLL_URL: "the Profiler cannot enrol, so it never receives captures",
  RUNNER_IDENTITY_DIR: "no persisted identity: the Profiler cannot enrol or prove who it is",
  RUNNER_PROFILE_TARGETS_FILE: "no target list: the Profiler may measure nothing",
  RUNNER_BOOTSTRAP_TOKEN: "the Profiler cannot enrol",
  RUNNER_BOOTSTRAP_TOKEN_FILE: "the Profiler cannot enrol",
  RUNNER_LOCAL_LISTEN: "sidecars cannot queue local captures",
  RUNNER_CA_FILE: "TLS to the enrolment and tunnel addresses cannot be verified",
};

function fixFor(variable: string): string {
  if (variable.startsWith("RUNNER_BOOTSTRAP_TOKEN")) {
    return deployFix({
      docker: "mount the token as a secret (compose `secrets:`) and set RUNNER_BOOTSTRAP_TOKEN_FILE=/run/secrets/<name>",
      kubernetes: "mount a Secret as a volume and set RUNNER_BOOTSTRAP_TOKEN_FILE to the mounted file",
      systemd: "LoadCredential=bootstrap-token:<path> and Environment=RUNNER_BOOTSTRAP_TOKEN_FILE=%d/bootstrap-token",
    });
  }
  if (variable === "RUNNER_IDENTITY_DIR") {
    return deployFix({
      docker: "mount a named volume (one per replica) and set RUNNER_IDENTITY_DIR to its mount point",
      kubernetes: "a PersistentVolumeClaim per replica (StatefulSet volumeClaimTemplates) mounted at RUNNER_IDENTITY_DIR",
      systemd: "StateDirectory=runner-profiler and Environment=RUNNER_IDENTITY_DIR=/var/lib/runner-profiler",
    });
  }
  return deployFix({
    docker: `-e ${variable}=… (compose: environment:)`,
    kubernetes: `env: - name: ${variable} in the container spec`,
    systemd: `Environment=${variable}=… in the unit`,
  });
}

export function checkEnv(env: Record<string, string | undefined>): { result: EnvResult; findings: Finding[] } {
  const result = readProfilerEnv(env);
  const findings: Finding[] = result.problems.map((p) =>
    p.severity === "fail" ? fail("env", p.variable, p.message, fixFor(p.variable), COST[p.variable] ?? "the Profiler cannot start") : warn("env", p.variable, p.message, fixFor(p.variable)),
  );
  if (result.config) findings.unshift(pass("env", "RUNNER_*", `environment complete (tenant ${result.config.tenant}, instance ${result.config.instanceId}, token from ${result.config.bootstrapTokenSource === "file" ? "file" : "plain environment"})`));
  return { result, findings };
}
