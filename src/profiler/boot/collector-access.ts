// Boot check: a ptop that carries file capabilities is executable by the Profiler's user and group
// only. Whoever executes it holds its five capabilities while it runs and chooses the target list
// it reads, so on a bare host a ptop every user may execute lets any local user measure any
// process, root's included. The image ships it root:65532 0750; the systemd install
// root:runner-profiler 0750.

import type { FileCapabilities } from "./file-capabilities.ts";
import { deployFix, fail, pass, type Finding } from "./finding.ts";

export function checkCollectorAccess(path: string, mode: number, caps: FileCapabilities): Finding[] {
  if (caps.permitted === 0n) return [];
  const octal = (mode & 0o7777).toString(8).padStart(4, "0");
  if ((mode & 0o001) === 0) {
    return [pass("collector-access", "mode", `collector ${path} (mode ${octal}) is not executable by other users`)];
  }
  return [
    fail(
      "collector-access",
      "mode",
      `collector ${path} carries file capabilities and every user may execute it (mode ${octal}): any local user can run it with a target list of their own`,
      deployFix({
        docker: "use the Profiler image as built (ptop is root:65532, mode 0750); in your own image: chown root:<the Profiler's gid> ptop && chmod 0750 ptop, then setcap (chown clears file capabilities)",
        kubernetes: "use the Profiler image as built (ptop is root:65532, mode 0750) with runAsGroup: 65532",
        systemd: `chown root:runner-profiler ${path} && chmod 0750 ${path}, then setcap again (chown clears file capabilities)`,
      }),
      "any local user can measure any process on the host, root's included, with ptop's five capabilities",
    ),
  ];
}
