// What one boot check concludes about one requirement. The boot refuses on any "fail"; `runner
// doctor` prints every finding. A failure always says what is wrong (naming the variable,
// capability or setting), what its absence costs, and how to fix it where people deploy.

export type CheckName =
  | "env"
  | "targets"
  | "collector"
  | "collector-access"
  | "capabilities"
  | "bounding-set"
  | "no-new-privs"
  | "user-namespace"
  | "nosuid"
  | "supervisor"
  | "pid-namespace"
  | "tracing"
  | "apparmor"
  | "memory"
  | "orchestrator"
  | "restart"
  | "identity"
  | "kernel"
  | "store";

export type FindingStatus = "pass" | "fail" | "warn";

export interface Finding {
  check: CheckName;
  status: FindingStatus;
  /** The variable, capability or setting this finding is about (e.g. "CAP_PERFMON"). */
  subject: string;
  message: string;
  /** How to fix it for docker/compose, Kubernetes and systemd (one line). */
  fix?: string;
  /** What is lost while it stays broken. */
  cost?: string;
}

/** The contract shape of a refusal: every field a string, all present. */
export interface Refusal {
  check: CheckName;
  subject: string;
  message: string;
  fix: string;
  cost: string;
}

export interface DeployFix {
  docker: string;
  kubernetes: string;
  systemd: string;
}

export function deployFix(f: DeployFix): string {
  return `docker/compose: ${f.docker}; Kubernetes: ${f.kubernetes}; systemd: ${f.systemd}`;
}

export function pass(check: CheckName, subject: string, message: string): Finding {
  return { check, status: "pass", subject, message };
}

export function fail(check: CheckName, subject: string, message: string, fix: string, cost: string): Finding {
  return { check, status: "fail", subject, message, fix, cost };
}

export function warn(check: CheckName, subject: string, message: string, fix?: string, cost?: string): Finding {
  return { check, status: "warn", subject, message, ...(fix ? { fix } : {}), ...(cost ? { cost } : {}) };
}

export function toRefusal(f: Finding): Refusal {
  return { check: f.check, subject: f.subject, message: f.message, fix: f.fix ?? "", cost: f.cost ?? "" };
}

/** One line per refusal, as printed on stderr when the boot is refused. */
export function formatRefusal(r: Refusal): string {
  return `refused [${r.check}] ${r.message} | cost: ${r.cost} | fix: ${r.fix}`;
}

export class BootRefusal extends Error {
  constructor(readonly refusals: Refusal[]) {
    super(`boot refused (${refusals.length} problem${refusals.length === 1 ? "" : "s"}):\n${refusals.map(formatRefusal).join("\n")}`);
    this.name = "BootRefusal";
  }
}
