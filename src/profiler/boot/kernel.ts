// Boot check: the node's kernel has what the collector needs (Linux 5.15 with BTF, native/ptop/
// README.md "Kernels"). The collector is asked (`ptop --check-kernel`: the same start-up check every
// capture makes, exec'd as a capture is, nothing else run) so that a node below the floor is told at
// boot, naming what its kernel lacks, instead of failing every capture afterwards.

import { PTOP_EXIT } from "../../protocol/profile-stream.ts";
import { deployFix, fail, pass, warn, type Finding } from "./finding.ts";

const ASK_TIMEOUT_MS = 15_000;

export function checkKernel(collectorPath: string): Finding[] {
  let r: ReturnType<typeof Bun.spawnSync>;
  try {
    r = Bun.spawnSync([collectorPath, "--check-kernel"], { stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: ASK_TIMEOUT_MS });
  } catch (err) {
    return [warn("kernel", "features", `could not ask the collector ${collectorPath} about this kernel: ${(err as Error).message}`)];
  }
  const said = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString().trim().replace(/^ptop: /, "") : "");
  const answer = said(r.stdout);
  if (r.exitCode === PTOP_EXIT.ok && answer.startsWith("this kernel")) return [pass("kernel", "features", answer)];
  const refusal = said(r.stderr);
  if (r.exitCode === PTOP_EXIT.no_privilege && refusal.startsWith("this kernel")) {
    return [
      fail(
        "kernel",
        "features",
        refusal,
        deployFix({
          docker: "run the Profiler on nodes with Linux 5.15 or later and BTF (Debian 12+, Ubuntu 22.04+, RHEL 9, Amazon Linux 2023)",
          kubernetes: "schedule the DaemonSet only on such nodes (a nodeSelector or node affinity on the kernel version)",
          systemd: "upgrade the host's kernel to 5.15 or later with CONFIG_DEBUG_INFO_BTF",
        }),
        "no capture can measure anything on this node",
      ),
    ];
  }
  // Not this collector's answer (an older ptop, another binary): say so, refuse nothing.
  const why = r.exitCode === null ? `no answer within ${ASK_TIMEOUT_MS / 1000} s` : `exit ${r.exitCode}${refusal ? `: ${refusal.slice(0, 300)}` : ""}`;
  return [warn("kernel", "features", `the collector ${collectorPath} did not answer --check-kernel (${why}); the kernel is checked at each capture instead`)];
}
