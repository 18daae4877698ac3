// Boot check: host process visibility. In a private PID namespace the supervisor (and ptop, which
// inherits it) sees only itself and its children: the target does not exist for it. The host
// namespace is recognised by its fixed inode; a shared namespace (a pod's) by other processes.

import { readdirSync, readFileSync } from "node:fs";
import { deployFix, fail, pass, warn, type Finding } from "./finding.ts";
import { readNamespaceInode } from "./proc-status.ts";

/** PROC_PID_INIT_INO: the inode of the initial PID namespace, fixed by the kernel. */
export const INITIAL_PID_NS_INODE = 4026531836;

const FIX = deployFix({
  docker: "--pid=host (compose: pid: host)",
  kubernetes: "hostPID: true on the Profiler pod, or shareProcessNamespace: true when the target runs in the same pod",
  systemd: "PrivatePIDs=no (run in the host PID namespace)",
});

/** pid -> ppid for every process /proc shows us. */
export function readProcessTree(proc = "/proc"): Map<number, number> {
  const tree = new Map<number, number>();
  for (const name of readdirSync(proc)) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`${proc}/${name}/stat`, "utf8");
      // comm may contain spaces and parentheses; the fields after the last ")" are fixed.
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      tree.set(Number(name), Number(rest[1]));
    } catch {
      // the process exited while we listed it
    }
  }
  return tree;
}

/** Processes that are neither us, our ancestors (an entrypoint) nor our descendants. */
export function strangers(tree: Map<number, number>, self: number): number[] {
  const own = new Set<number>([self]);
  for (let p = tree.get(self); p !== undefined && p > 0 && !own.has(p); p = tree.get(p)) own.add(p);
  const isDescendant = (pid: number): boolean => {
    const seen = new Set<number>();
    for (let p: number | undefined = pid; p !== undefined && p > 0 && !seen.has(p); p = tree.get(p)) {
      if (p === self) return true;
      seen.add(p);
    }
    return false;
  };
  return [...tree.keys()].filter((pid) => !own.has(pid) && !isDescendant(pid));
}

export function checkPidNamespace(inode = readNamespaceInode("pid"), tree?: Map<number, number>, self = process.pid): Finding[] {
  if (inode === INITIAL_PID_NS_INODE) return [pass("pid-namespace", "PID namespace", "the host PID namespace is shared: every host process is visible")];
  // Only outside the host namespace is /proc walked (a host has thousands of processes).
  const others = strangers(tree ?? readProcessTree(), self);
  if (others.length > 0) {
    return [
      warn(
        "pid-namespace",
        "PID namespace",
        `a shared PID namespace that is not the host's: ${others.length} other process${others.length === 1 ? " is" : "es are"} visible, only those can be measured`,
        FIX,
      ),
    ];
  }
  return [
    fail(
      "pid-namespace",
      "PID namespace",
      "private PID namespace: the supervisor sees only itself and its own children, so no target process is visible",
      FIX,
      "the collector sees only itself: every target is reported as not running and nothing is ever measured",
    ),
  ];
}
