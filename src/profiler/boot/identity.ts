// Boot check: the identity volume (src/profiler/identity.ts) opens: key pair present or created,
// class and instance id match, lock taken.

import { IdentityError, openIdentity, type Identity } from "../identity.ts";
import { deployFix, fail, pass, warn, type Finding } from "./finding.ts";

const FIX = deployFix({
  docker: "give each Profiler container its own named volume at RUNNER_IDENTITY_DIR (never the Agent's, never another replica's)",
  kubernetes: "a StatefulSet with volumeClaimTemplates (one PersistentVolumeClaim per replica) mounted at RUNNER_IDENTITY_DIR",
  systemd: "StateDirectory=runner-profiler used by this unit only",
});
const COST = "sharing an identity lets two Profilers answer as one: captures would be routed to the wrong host and enrolment of the other is refused";

export async function checkIdentity(dir: string, instanceId: string, create: boolean): Promise<{ identity?: Identity; findings: Finding[] }> {
  try {
    const identity = await openIdentity(dir, instanceId, { create });
    const findings: Finding[] = [pass("identity", "RUNNER_IDENTITY_DIR", `identity ${identity.created ? "created" : "loaded"} in ${dir} (class profiler, instance ${instanceId})`)];
    if (identity.foreignEntries.length > 0) findings.push(warn("identity", "RUNNER_IDENTITY_DIR", `identity volume ${dir} also holds ${identity.foreignEntries.slice(0, 5).join(", ")}${identity.foreignEntries.length > 5 ? " and more" : ""}, which are not the Profiler's; it should be used by the Profiler alone`, FIX));
    if (identity.repairedModes.length > 0) findings.push(warn("identity", "RUNNER_IDENTITY_DIR", `identity files ${identity.repairedModes.join(", ")} ${create ? "were readable by group or others; reset to 0600" : "are readable by group or others; the boot resets them to 0600"}`, FIX));
    return { identity, findings };
  } catch (err) {
    if (err instanceof IdentityError) {
      if (!create && err.setting === "files" && /holds no identity yet/.test(err.message)) {
        return { findings: [warn("identity", "RUNNER_IDENTITY_DIR", err.message)] };
      }
      // The running Profiler holds the lock: for doctor that is information, not a failure.
      if (!create && err.setting === "lock" && / is in use\b/.test(err.message)) {
        return { findings: [warn("identity", "RUNNER_IDENTITY_DIR", err.message, FIX, COST)] };
      }
      return { findings: [fail("identity", err.setting === "instance id" ? "RUNNER_INSTANCE_ID" : "RUNNER_IDENTITY_DIR", err.message, FIX, COST)] };
    }
    return { findings: [fail("identity", "RUNNER_IDENTITY_DIR", `identity volume ${dir}: ${(err as Error).message}`, FIX, "no identity: the Profiler cannot enrol")] };
  }
}
