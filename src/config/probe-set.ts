// RUNNER_PROBES: which of ptop's probes a Profiler attaches in every capture. The capture request's
// fields are fixed by the reference, so the probe set is the Profiler operator's choice: the cost
// of a probe falls on that host's workloads, and the operator is the one who can accept it.
//
// Default: cpu, offcpu, syscalls and locks. `locks` costs the target ~3.8 µs of CPU per lock wait
// (bench/RESULTS.md, "locks probe cost"): below what the bench resolves on a contended and an
// uncontended program, and of the order of what `offcpu` already pays for the same waits.
// `alloc` (uprobes on malloc & co. and Go's runtime.mallocgc) is opt-in: a uprobe costs the
// target a trap per allocation, and its measured cost at 100k allocations/s (bench/RESULTS.md,
// "alloc probe cost") is above the 2% a default may cost.

import { ALL_PROBES, type ProbeName } from "../protocol/profile-stream.ts";

export const PROBES_VARIABLE = "RUNNER_PROBES";
export const DEFAULT_PROBES: readonly ProbeName[] = ["cpu", "offcpu", "syscalls", "locks"];

/** The probe set from RUNNER_PROBES ("cpu,offcpu,syscalls,locks,alloc"; unset or empty: the default), or why it is invalid. */
export function probeSetFrom(env: Record<string, string | undefined>): { probes: ProbeName[] } | { problem: string } {
  const raw = env[PROBES_VARIABLE];
  if (raw === undefined || raw.trim() === "") return { probes: [...DEFAULT_PROBES] };
  const probes: ProbeName[] = [];
  for (const item of raw.split(",")) {
    const name = item.trim();
    if (!(ALL_PROBES as readonly string[]).includes(name)) {
      const shown = name === "" ? "an empty name" : `"${name.slice(0, 40)}"`;
      return { problem: `${PROBES_VARIABLE} names ${shown}; it takes a comma-separated list of ${ALL_PROBES.join(", ")} (default ${DEFAULT_PROBES.join(",")})` };
    }
    if (!probes.includes(name as ProbeName)) probes.push(name as ProbeName);
  }
  return { probes };
}
