// Boot check: the supervisor itself is unprivileged — not root, no capability in its effective,
// permitted or ambient sets. The privilege sits on ptop alone, away from network-facing code.

import { bitsToNames } from "./capability-names.ts";
import { deployFix, fail, pass, type Finding } from "./finding.ts";
import type { ProcStatus } from "./proc-status.ts";

const FIX = deployFix({
  docker: "run as a non-root user without --privileged: USER 65532 in the image or --user 65532:65532 (compose: user: \"65532:65532\")",
  kubernetes: "securityContext.runAsNonRoot: true and runAsUser: 65532; no privileged: true",
  systemd: "User=runner-profiler with no AmbientCapabilities=",
});
const COST = "privilege in the supervisor is within reach of its network-facing code (enrolment, tunnel); only ptop may hold it";

export function checkSupervisor(status: ProcStatus): Finding[] {
  const findings: Finding[] = [];
  if (status.uid.some((u) => u === 0)) {
    findings.push(fail("supervisor", "uid 0", `the supervisor runs as root (uid ${status.uid.join("/")}); it must run as a non-root user`, FIX, COST));
  }
  const held = ([["CapEff", status.capEff], ["CapPrm", status.capPrm], ["CapAmb", status.capAmb]] as const).filter(([, set]) => set !== 0n);
  if (held.length > 0) {
    const names = bitsToNames(held.reduce((m, [, set]) => m | set, 0n));
    const shown = names.length > 6 ? `${names.slice(0, 6).join(", ")} and ${names.length - 6} more` : names.join(", ");
    const sets = held.map(([name, set]) => `${name}=${set.toString(16).padStart(16, "0")}`).join(", ");
    findings.push(fail("supervisor", "CapEff", `the supervisor holds capabilities (${sets}: ${shown}); it must run with CapEff 0 and no capabilities at all`, FIX, COST));
  }
  if (findings.length === 0) findings.push(pass("supervisor", "CapEff", `the supervisor runs as uid ${status.uid[0]} with CapEff 0`));
  return findings;
}
