// Boot check (warning only): the container's memory limit. The reference setup limits the
// Profiler to 512m; an unlimited Profiler can grow without bound on a node it shares with the
// workloads it measures.

import { readFileSync } from "node:fs";
import { deployFix, pass, warn, type Finding } from "./finding.ts";

export const REFERENCE_LIMIT = 512 * 1024 * 1024;
/** cgroup v1 reports "unlimited" as a page-rounded LONG_MAX. */
const V1_UNLIMITED = 2n ** 60n;

const FIX = deployFix({
  docker: "--memory 512m (compose: mem_limit: 512m)",
  kubernetes: "resources.limits.memory: 512Mi",
  systemd: "MemoryMax=512M",
});

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

/** The memory limit in bytes of our cgroup, null when unlimited, undefined when unknown. */
export function readMemoryLimit(cgroupFile = "/proc/self/cgroup", root = "/sys/fs/cgroup"): bigint | null | undefined {
  const lines = (read(cgroupFile) ?? "").split("\n");
  const v2 = lines.find((l) => l.startsWith("0::"))?.slice(3);
  const v1 = lines.map((l) => l.split(":")).find((p) => p[1]?.split(",").includes("memory"))?.[2];
  const candidates: [string, "v1" | "v2"][] = [];
  if (v1 !== undefined) candidates.push([`${root}/memory${v1}/memory.limit_in_bytes`, "v1"], [`${root}/memory/memory.limit_in_bytes`, "v1"]);
  if (v2 !== undefined) candidates.push([`${root}${v2}/memory.max`, "v2"], [`${root}/memory.max`, "v2"]);
  for (const [path, version] of candidates) {
    const v = read(path.replace(/\/+/g, "/"));
    if (v === undefined) continue;
    if (v === "max") return null;
    if (!/^\d+$/.test(v)) continue;
    const n = BigInt(v);
    return version === "v1" && n >= V1_UNLIMITED ? null : n;
  }
  return undefined;
}

export function checkMemory(limit = readMemoryLimit()): Finding[] {
  if (limit === undefined) return [warn("memory", "memory limit", "the memory limit of this cgroup cannot be read; the reference setup limits the Profiler to 512m", FIX)];
  if (limit === null) return [warn("memory", "memory limit", "no memory limit: the reference setup limits the Profiler to 512m", FIX, "an unbounded Profiler competes for memory with the workloads it measures")];
  const mib = Number(limit / 1024n / 1024n);
  return [pass("memory", "memory limit", `memory limited to ${mib} MiB${limit === BigInt(REFERENCE_LIMIT) ? " (the reference setup)" : " (reference setup: 512m)"}`)];
}
