// Boot check: tracing mounts. Without tracefs the tracepoint probes (offcpu: sched_switch,
// syscalls: raw_syscalls, locks: syscalls' futex and futex_waitv) cannot attach; cpu sampling
// needs only perf events. This does not stop the boot — the boot line states which probes to
// expect — but a capture will have absent axes.

import type { ProbeName } from "../../protocol/profile-stream.ts";
import { DEFAULT_PROBES } from "../../config/probe-set.ts";
import { probeCoverage } from "../../protocol/instrumentation-statement.ts";
import { deployFix, pass, warn, type Finding } from "./finding.ts";
import { fsTypeAt, type Mount } from "./mountinfo.ts";

export const TRACEFS = "/sys/kernel/tracing";
export const DEBUGFS = "/sys/kernel/debug";
const TRACEPOINT_PROBES: readonly ProbeName[] = ["offcpu", "syscalls", "locks"];

export interface TracingState {
  findings: Finding[];
  probesExpected: ProbeName[];
  probesUnavailable: { probe: ProbeName; reason: string }[];
}

const FIX = deployFix({
  docker: `-v ${TRACEFS}:${TRACEFS} -v ${DEBUGFS}:${DEBUGFS} (compose: volumes:)`,
  kubernetes: `hostPath volumes for ${TRACEFS} and ${DEBUGFS} mounted at the same paths`,
  systemd: `on the host: mount -t tracefs nodev ${TRACEFS} and mount -t debugfs nodev ${DEBUGFS} (BindReadOnlyPaths= must not hide them)`,
});

/** `chosen`: the Profiler's probe set (RUNNER_PROBES); the boot line states those it can expect. */
export function checkTracing(mounts: Mount[], chosen: readonly ProbeName[] = DEFAULT_PROBES): TracingState {
  const tracefs = fsTypeAt(mounts, TRACEFS) === "tracefs";
  const debugfs = fsTypeAt(mounts, DEBUGFS) === "debugfs";
  const findings: Finding[] = [];
  // libbpf finds tracepoints under /sys/kernel/tracing, else under debugfs's tracing/ automount.
  const tracepoints = tracefs || debugfs;
  if (tracefs) findings.push(pass("tracing", TRACEFS, `tracefs is mounted at ${TRACEFS}`));
  else findings.push(warn("tracing", TRACEFS, `tracefs is not mounted at ${TRACEFS}`, FIX, tracepoints ? undefined : `${TRACEPOINT_PROBES.join(", ")} cannot attach: those axes are absent from every capture`));
  if (debugfs) findings.push(pass("tracing", DEBUGFS, `debugfs is mounted at ${DEBUGFS}`));
  else findings.push(warn("tracing", DEBUGFS, `debugfs is not mounted at ${DEBUGFS}`, FIX, tracepoints ? undefined : `${TRACEPOINT_PROBES.join(", ")} cannot attach: those axes are absent from every capture`));
  const probesUnavailable = tracepoints ? [] : TRACEPOINT_PROBES.filter((p) => chosen.includes(p)).map((probe) => ({ probe, reason: `needs ${TRACEFS} (tracefs not mounted, no debugfs at ${DEBUGFS})` }));
  const probesExpected = chosen.filter((p) => !probesUnavailable.some((u) => u.probe === p));
  return { findings, probesExpected, probesUnavailable };
}

/**
 * What this host will let captures attach, stated at boot before any capture: "fully instrumented
 * (4 probes)" or "1 of 4 probes: offcpu, syscalls, locks need /sys/kernel/tracing" (the coverage phrase is
 * the one capture records use, followed by why).
 */
export function expectedInstrumentation(expected: readonly ProbeName[], unavailable: readonly { probe: ProbeName }[]): string {
  const total = expected.length + unavailable.length;
  const coverage = probeCoverage(expected.length, total, unavailable.length);
  if (unavailable.length === 0) return `${coverage} (${total} probes)`;
  return `${coverage}: ${unavailable.map((u) => u.probe).join(", ")} need ${TRACEFS}`;
}
