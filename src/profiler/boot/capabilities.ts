// Boot check: the collector binary carries exactly the five file capabilities, with the effective
// flag, nothing inheritable and nothing extra — read from its security.capability xattr.

import { accessSync, constants, statSync, type Stats } from "node:fs";
import { bitsToNames, REQUIRED_CAPS, REQUIRED_MASK } from "./capability-names.ts";
import { checkCollectorAccess } from "./collector-access.ts";
import { CapabilityXattrError, parseCapabilityXattr, type FileCapabilities } from "./file-capabilities.ts";
import { deployFix, fail, pass, type Finding } from "./finding.ts";
import { getCapabilityXattr } from "./libc.ts";

export const SETCAP_LINE = "cap_bpf,cap_perfmon,cap_sys_ptrace,cap_dac_read_search,cap_sys_admin+ep";

export function setcapFix(path: string): string {
  return deployFix({
    docker: `in the image build: RUN setcap ${SETCAP_LINE} ${path} (never copy ptop through a volume: copies lose the xattr)`,
    kubernetes: `use the Profiler image as built (ptop carries its file capabilities); do not replace ptop from a volume or an initContainer`,
    systemd: `setcap ${SETCAP_LINE} ${path} after installing it`,
  });
}

const ALL_LOST = "ptop runs with none of the five capabilities: no probe attaches and nothing is measured";

export function checkCollectorCapabilities(path: string): Finding[] {
  const fix = setcapFix(path);
  let st: Stats;
  try {
    st = statSync(path);
    if (!st.isFile()) return [fail("collector", "RUNNER_COLLECTOR_PATH", `collector ${path} is not a regular file`, fixCollectorPath(), ALL_LOST)];
  } catch {
    return [fail("collector", "RUNNER_COLLECTOR_PATH", `collector ${path} does not exist (set RUNNER_COLLECTOR_PATH or install ptop beside runner)`, fixCollectorPath(), "no collector: nothing can be measured")];
  }
  try {
    accessSync(path, constants.X_OK);
  } catch {
    // ptop is installed executable by the Profiler's group only (collector-access.ts): a supervisor
    // run with another gid lands here.
    const owner = `owner ${st.uid}:${st.gid}, mode ${(st.mode & 0o7777).toString(8).padStart(4, "0")}`;
    return [fail("collector", "RUNNER_COLLECTOR_PATH", `collector ${path} is not executable by this user (uid ${process.getuid?.()}, gid ${process.getgid?.()}; ${owner}): run the Profiler in the group ptop belongs to`, fixCollectorGroup(), "no collector: nothing can be measured")];
  }
  let raw: Uint8Array | null;
  try {
    raw = getCapabilityXattr(path);
  } catch (err) {
    return [fail("capabilities", "security.capability", `cannot read the security.capability xattr of ${path}: ${(err as Error).message}`, fix, ALL_LOST)];
  }
  if (raw === null) {
    return [fail("capabilities", "file capabilities", `collector ${path} has no file capabilities (no security.capability xattr); it needs exactly CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_SYS_ADMIN +ep`, fix, ALL_LOST)];
  }
  let caps: FileCapabilities;
  try {
    caps = parseCapabilityXattr(raw);
  } catch (err) {
    if (err instanceof CapabilityXattrError) return [fail("capabilities", "security.capability", `collector ${path}: ${err.message}`, fix, ALL_LOST)];
    throw err;
  }
  return [...judgeFileCapabilities(path, caps), ...checkCollectorAccess(path, st.mode, caps)];
}

/** The verdict on decoded file capabilities (separate so every case is unit-testable). */
export function judgeFileCapabilities(path: string, caps: FileCapabilities): Finding[] {
  const fix = setcapFix(path);
  const findings: Finding[] = [];
  for (const cap of REQUIRED_CAPS) {
    if (((caps.permitted >> BigInt(cap.bit)) & 1n) === 0n) {
      findings.push(fail("capabilities", cap.name, `collector ${path} lacks ${cap.name} in its permitted file capabilities`, fix, cap.cost));
    }
  }
  const extra = caps.permitted & ~REQUIRED_MASK;
  if (extra !== 0n) {
    const names = bitsToNames(extra);
    findings.push(fail("capabilities", names.join(","), `collector ${path} carries capabilities beyond the five: ${names.join(", ")}; exactly five are allowed`, fix, `needless privilege: a flaw in ptop would hand out ${names.join(", ")}`));
  }
  if (caps.inheritable !== 0n) {
    const names = bitsToNames(caps.inheritable);
    findings.push(fail("capabilities", "inheritable", `collector ${path} has inheritable file capabilities (${names.join(", ")}); nothing may be inheritable`, fix, "inheritable capabilities can leak to programs ptop would execute"));
  }
  if (!caps.effective) {
    findings.push(fail("capabilities", "effective flag", `collector ${path} file capabilities lack the effective flag (+e): ptop would start with an empty effective set`, fix, ALL_LOST));
  }
  if (caps.version === 3 && caps.rootid !== 0) {
    findings.push(fail("capabilities", "security.capability v3 rootid", `collector ${path} carries namespaced (v3) file capabilities for root uid ${caps.rootid}; the initial user namespace ignores them`, fix, ALL_LOST));
  }
  if (findings.length === 0) {
    findings.push(pass("capabilities", "file capabilities", `collector ${path} carries exactly ${REQUIRED_CAPS.map((c) => c.name).join(", ")} +ep (xattr v${caps.version})`));
  }
  return findings;
}

function fixCollectorPath(): string {
  return deployFix({
    docker: "use the Profiler image (ptop beside runner) or set RUNNER_COLLECTOR_PATH to ptop inside the image",
    kubernetes: "use the Profiler image unchanged or set RUNNER_COLLECTOR_PATH in env:",
    systemd: "install ptop beside runner or set Environment=RUNNER_COLLECTOR_PATH=/usr/local/bin/ptop",
  });
}

function fixCollectorGroup(): string {
  return deployFix({
    docker: "run as the image's user and group: --user 65532:65532 (compose: user: \"65532:65532\")",
    kubernetes: "securityContext.runAsUser: 65532 and runAsGroup: 65532",
    systemd: "Group= the group that owns ptop (chown root:runner-profiler /opt/runner/ptop, mode 0750)",
  });
}
