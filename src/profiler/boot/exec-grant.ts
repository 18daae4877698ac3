// Boot check: what the kernel will actually grant when the supervisor execs ptop. File capabilities
// are honoured only if each capability is in our bounding set, no_new_privs is off, we are in the
// initial user namespace, and ptop's file system is not mounted nosuid.

import { readFileSync, realpathSync } from "node:fs";
import { REQUIRED_CAPS } from "./capability-names.ts";
import { deployFix, fail, pass, type Finding } from "./finding.ts";
import { isNosuid } from "./libc.ts";
import { mountOf, readMounts } from "./mountinfo.ts";
import { readNamespaceInode, type ProcStatus } from "./proc-status.ts";

/** PROC_USER_INIT_INO: the inode of the initial user namespace, fixed by the kernel. */
export const INITIAL_USER_NS_INODE = 4026531837;

const NONE_GRANTED = "the kernel ignores ptop's file capabilities: ptop runs with none of the five and nothing is measured";

export function checkBoundingSet(status: ProcStatus): Finding[] {
  const findings: Finding[] = [];
  for (const cap of REQUIRED_CAPS) {
    if (((status.capBnd >> BigInt(cap.bit)) & 1n) === 0n) {
      findings.push(
        fail(
          "bounding-set",
          cap.name,
          // With the effective flag set, an exec that cannot grant every file capability fails outright.
          `${cap.name} is not in the capability bounding set (CapBnd): the kernel cannot grant it, so exec of ptop fails with "Operation not permitted"`,
          deployFix({
            docker: `--cap-add ${cap.short} (compose: cap_add: [${cap.short}])`,
            kubernetes: `securityContext.capabilities.add: ["${cap.short}"]`,
            systemd: `CapabilityBoundingSet= must include ${cap.name} (or be left unset)`,
          }),
          `ptop cannot start at all; and even if it could, ${cap.cost}`,
        ),
      );
    }
  }
  if (findings.length === 0) findings.push(pass("bounding-set", "CapBnd", "the bounding set holds all five capabilities"));
  return findings;
}

export function checkNoNewPrivs(status: ProcStatus): Finding[] {
  if (!status.noNewPrivs) return [pass("no-new-privs", "NoNewPrivs", "no_new_privs is off: file capabilities take effect on exec")];
  return [
    fail(
      "no-new-privs",
      "NoNewPrivs",
      "NoNewPrivs is 1 (no_new_privs set): file capabilities are ignored on exec",
      deployFix({
        docker: "drop --security-opt no-new-privileges (compose: remove no-new-privileges from security_opt)",
        kubernetes: "securityContext.allowPrivilegeEscalation: true on the Profiler container (file capabilities are an escalation)",
        systemd: "NoNewPrivileges=no, and none of the options that imply it (SystemCallFilter=, RestrictNamespaces=, MemoryDenyWriteExecute=, LockPersonality=, ProtectKernel*=)",
      }),
      NONE_GRANTED,
    ),
  ];
}

export function checkUserNamespace(inode = readNamespaceInode("user"), uidMap = readUidMap()): Finding[] {
  // The inode is authoritative; the uid map is the fallback where /proc/self/ns is unreadable.
  const initial = inode !== undefined ? inode === INITIAL_USER_NS_INODE : uidMap !== undefined && /^\s*0\s+0\s+4294967295\s*$/.test(uidMap);
  if (initial) return [pass("user-namespace", "user namespace", "running in the initial user namespace")];
  return [
    fail(
      "user-namespace",
      "user namespace",
      `running in a user namespace other than the initial one (uid map: ${(uidMap ?? "unreadable").trim().replace(/\s+/g, " ")}): capabilities there give no power over the host kernel`,
      deployFix({
        docker: "--userns=host (no userns-remap for this container; rootless docker/podman cannot run the Profiler)",
        kubernetes: "leave hostUsers unset or true (no user namespace for the Profiler pod)",
        systemd: "PrivateUsers=no",
      }),
      "BPF and perf events are refused outside the initial user namespace: nothing is measured",
    ),
  ];
}

function readUidMap(): string | undefined {
  try {
    return readFileSync("/proc/self/uid_map", "utf8");
  } catch {
    return undefined;
  }
}

export function checkNosuid(collectorPath: string): Finding[] {
  let nosuid: boolean;
  try {
    nosuid = isNosuid(collectorPath);
  } catch {
    // No statvfs (no glibc to call into): read the mount options instead. Never skip the check.
    let real: string;
    try {
      real = realpathSync(collectorPath);
    } catch {
      return []; // the collector check already reports a missing file
    }
    const mount = mountOf(readMounts(), real);
    if (!mount) return [fail("nosuid", "nosuid", `cannot tell whether ${collectorPath} is on a nosuid file system`, "mount /proc", NONE_GRANTED)];
    nosuid = mount.options.includes("nosuid");
  }
  if (!nosuid) return [pass("nosuid", "nosuid", `${collectorPath} is on a file system mounted without nosuid`)];
  return [
    fail(
      "nosuid",
      "nosuid",
      `${collectorPath} is on a file system mounted nosuid: the kernel ignores its file capabilities`,
      deployFix({
        docker: "run ptop from the image's own file system, not from a volume or tmpfs mounted nosuid",
        kubernetes: "run ptop from the image, not from an emptyDir/hostPath volume mounted nosuid",
        systemd: "install ptop on a file system without nosuid (e.g. /usr/local/bin, not /tmp or a nosuid /home)",
      }),
      NONE_GRANTED,
    ),
  ];
}
