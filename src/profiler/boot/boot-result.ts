// What a successful boot hands to the supervisor (src/profiler/supervisor.ts).

import type { ProfilerConfig } from "../../config/profiler-env.ts";
import type { ProbeName } from "../../protocol/profile-stream.ts";
import type { Target } from "../targets.ts";
import type { Finding } from "./finding.ts";

export interface BootIdentity {
  /** base64 (standard alphabet) of the ed25519 public key */
  publicKey: string;
  sign(message: Uint8Array): Uint8Array;
  /** Releases the identity volume's lock; call on shutdown. */
  release(): void;
}

export interface BootResult {
  config: ProfilerConfig;
  /** The parsed target list. Never log or send it: log `targets.length` only. */
  targets: Target[];
  identity: BootIdentity;
  probesExpected: ProbeName[];
  probesUnavailable: { probe: ProbeName; reason: string }[];
  /** "fully instrumented (4 probes)" or "1 of 4 probes: offcpu, syscalls, locks need /sys/kernel/tracing" */
  instrumentation: string;
  /** The boot's warnings (logged before the boot line). */
  warnings: Finding[];
}
