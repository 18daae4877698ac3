// Boot check: the mandatory-access-control profile. Where the host enforces AppArmor, ptop runs
// under the container's profile: "unconfined" is refused (the reference forbids it), the default
// container profiles are reported because they block /proc/PID/exe and /proc/PID/ns/* of targets.

import { readFileSync } from "node:fs";
import { deployFix, fail, pass, warn, type Finding } from "./finding.ts";

export const PROFILE_NAME = "runner-profiler";
const DEFAULT_PROFILES = new Set(["docker-default", "cri-containerd.apparmor.d", "containers-default"]);

const FIX = deployFix({
  docker: `load apparmor/${PROFILE_NAME} on the host (apparmor_parser -r) and run with --security-opt apparmor=${PROFILE_NAME} (compose: security_opt)`,
  kubernetes: `load the profile on every node and set securityContext.appArmorProfile: {type: Localhost, localhostProfile: ${PROFILE_NAME}}`,
  systemd: `AppArmorProfile=${PROFILE_NAME}`,
});

export interface AppArmorState {
  enabled: boolean;
  /** e.g. "docker-default (enforce)", "unconfined"; undefined when unreadable. */
  label?: string;
}

function readFirst(paths: string[]): string | undefined {
  for (const p of paths) {
    try {
      return readFileSync(p, "utf8").replace(/\0/g, "").trim();
    } catch {
      // next
    }
  }
  return undefined;
}

export function readAppArmor(): AppArmorState {
  const enabled = readFirst(["/sys/module/apparmor/parameters/enabled"]) === "Y";
  const label = readFirst(["/proc/self/attr/apparmor/current", "/proc/self/attr/current"]);
  return { enabled, ...(label !== undefined ? { label } : {}) };
}

export function checkAppArmor(state: AppArmorState = readAppArmor()): Finding[] {
  if (!state.enabled) return [pass("apparmor", "AppArmor", "the host does not enforce AppArmor")];
  const label = state.label ?? "unknown";
  const name = label.replace(/\s+\((enforce|complain|kill|unconfined|prompt)\)$/, "");
  if (name === "unconfined") {
    return [fail("apparmor", "AppArmor profile", `AppArmor is enforced on this host but the Profiler runs unconfined; it must run under the ${PROFILE_NAME} profile`, FIX, "ptop would run without mandatory access control, which the deployment requirements forbid")];
  }
  if (DEFAULT_PROFILES.has(name)) {
    return [warn("apparmor", "AppArmor profile", `the Profiler runs under the default container profile ${label}, which blocks reading /proc/PID/exe and /proc/PID/ns/* of targets`, FIX, "captures report permission denied on /proc/PID/ns/* and /proc/PID/exe: targets in other containers are missed or unsymbolized")];
  }
  if (/\(complain\)$/.test(label)) return [warn("apparmor", "AppArmor profile", `AppArmor profile ${label} is in complain mode`, FIX)];
  return [pass("apparmor", "AppArmor profile", `confined by AppArmor profile ${label}`)];
}
