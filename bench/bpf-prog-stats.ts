// The kernel's own accounting of BPF programs (kernel.bpf_stats_enabled): run count and summed run
// time of each program a process holds, read from /proc/PID/fdinfo of its bpf-prog descriptors
// (root reads another process's fdinfo; no bpftool needed for the counters).
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";

export interface ProgStats { id: number; type: number; runTimeNs: number; runCnt: number }

const SYSCTL = "/proc/sys/kernel/bpf_stats_enabled";

/** Turns the kernel's BPF run-time statistics on; returns a function that restores the old value.
 *  Each program run then costs two clock reads more (tens of ns), so measure with it off. */
export function enableBpfStats(): () => void {
  const before = readFileSync(SYSCTL, "utf8").trim();
  writeFileSync(SYSCTL, "1\n");
  return () => writeFileSync(SYSCTL, `${before}\n`);
}

/** Every BPF program pid holds a descriptor of, by program id (a program held twice counts once). */
export function progStats(pid: number): Map<number, ProgStats> {
  const out = new Map<number, ProgStats>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out;
  }
  for (const fd of fds) {
    let link = "";
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (link !== "anon_inode:bpf-prog") continue;
    let info = "";
    try {
      info = readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8");
    } catch {
      continue;
    }
    const field = (name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, "m").exec(info)?.[1] ?? NaN);
    const id = field("prog_id");
    out.set(id, { id, type: field("prog_type"), runTimeNs: field("run_time_ns"), runCnt: field("run_cnt") });
  }
  return out;
}

/** A program's name as bpftool shows it, or its id when bpftool is not installed. */
export function progName(id: number): string {
  const r = Bun.spawnSync(["bpftool", "prog", "show", "id", String(id), "--json"], { stdout: "pipe", stderr: "ignore" });
  try {
    return JSON.parse(r.stdout.toString()).name ?? `id ${id}`;
  } catch {
    return `id ${id}`;
  }
}
