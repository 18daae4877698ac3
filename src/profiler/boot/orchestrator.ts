// Boot check (warning only): orchestrator API permission. The Profiler calls no orchestrator API
// today, so a mounted service-account token is unused privilege.

import { existsSync } from "node:fs";
import { deployFix, pass, warn, type Finding } from "./finding.ts";

export const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

export function checkOrchestratorAccess(tokenPresent = existsSync(SERVICE_ACCOUNT_TOKEN)): Finding[] {
  if (!tokenPresent) return [pass("orchestrator", "service account", "no orchestrator credentials mounted (none are needed)")];
  return [
    warn(
      "orchestrator",
      "service account",
      `a Kubernetes service-account token is mounted (${SERVICE_ACCOUNT_TOKEN}) but the Profiler makes no orchestrator API call`,
      deployFix({ docker: "n/a", kubernetes: "automountServiceAccountToken: false on the Profiler pod (and no RBAC binding)", systemd: "n/a" }),
      "unused privilege: whoever compromises the Profiler gets the service account's rights",
    ),
  ];
}
