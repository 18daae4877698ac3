// The lines of /proc/<pid>/status the boot reads: who we are and which capabilities we hold.

import { readFileSync, readlinkSync } from "node:fs";

export interface ProcStatus {
  /** real, effective, saved, filesystem */
  uid: number[];
  capInh: bigint;
  capPrm: bigint;
  capEff: bigint;
  capBnd: bigint;
  capAmb: bigint;
  noNewPrivs: boolean;
}

export function parseProcStatus(text: string): ProcStatus {
  const fields = new Map<string, string>();
  for (const line of text.split("\n")) {
    const i = line.indexOf(":");
    if (i > 0) fields.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  const hex = (name: string): bigint => {
    const v = fields.get(name);
    if (v === undefined || !/^[0-9a-fA-F]+$/.test(v)) throw new Error(`/proc status has no ${name} line`);
    return BigInt(`0x${v}`);
  };
  const uid = (fields.get("Uid") ?? "").split(/\s+/).filter(Boolean).map(Number);
  if (uid.length !== 4 || uid.some((n) => !Number.isInteger(n))) throw new Error("/proc status has no Uid line");
  return {
    uid,
    capInh: hex("CapInh"),
    capPrm: hex("CapPrm"),
    capEff: hex("CapEff"),
    capBnd: hex("CapBnd"),
    capAmb: fields.has("CapAmb") ? hex("CapAmb") : 0n,
    // Absent before Linux 4.10, where no_new_privs could not be observed; treat as unknown-off.
    noNewPrivs: fields.get("NoNewPrivs") === "1",
  };
}

export function readProcStatus(pid: number | "self" = "self"): ProcStatus {
  return parseProcStatus(readFileSync(`/proc/${pid}/status`, "utf8"));
}

/** The inode of our `kind` namespace (/proc/self/ns/<kind> reads "<kind>:[inode]"), or undefined when unreadable. */
export function readNamespaceInode(kind: "pid" | "user"): number | undefined {
  try {
    const m = /^([a-z]+):\[(\d+)\]$/.exec(readlinkSync(`/proc/self/ns/${kind}`));
    return m?.[1] === kind ? Number(m[2]) : undefined;
  } catch {
    return undefined;
  }
}
