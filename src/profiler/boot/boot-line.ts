// The one JSON line a booted Profiler logs: its class, how many targets (never which), the
// instrumentation it expects, version and architecture.

import { RUNNER_VERSION } from "../../version.ts";
import type { BootResult } from "./boot-result.ts";

export function archName(arch: string = process.arch): string {
  return arch === "x64" ? "amd64" : arch;
}

export function bootLineFields(r: BootResult): Record<string, unknown> {
  return {
    class: "profiler",
    targets: r.targets.length,
    probes: r.probesExpected,
    probes_unavailable: r.probesUnavailable,
    instrumentation: r.instrumentation,
    version: RUNNER_VERSION,
    arch: archName(),
    tenant: r.config.tenant,
    instance: r.config.instanceId,
    /** Milliseconds from process start to this line (what bench/profiler-boot.ts also measures). */
    boot_ms: Math.round(performance.now()),
  };
}
