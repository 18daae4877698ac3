// One capture order, end to end on this node: decide whether it is ours, run ptop, collect the
// stream, and turn the collector's exit into one of the answers the control plane merges.
//
// The supervisor holds no capabilities; ptop carries them as file capabilities, so spawning it is
// the only privileged step and it happens in a separate process that re-checks the target list.

import { gzipSync } from "node:zlib";
import { PTOP_EXIT, type ProbeName } from "../protocol/profile-stream.ts";
import { DEFAULT_PROBES } from "../config/probe-set.ts";
import type { CaptureOrder, Instrumentation } from "../protocol/tunnel.ts";
import { MAX_PROFILE_BYTES, mib, ProfileTooLargeError } from "../protocol/profile-limits.ts";
import { instrumentationFromStream } from "./instrumentation.ts";
import type { Target } from "./targets.ts";

export interface CaptureContext {
  collectorPath: string;
  targetsFile: string;
  targets: readonly Target[];
  probes?: readonly ProbeName[];
  /** The cpu probe's frequency; absent: ptop's default. */
  frequencyHz?: number;
  /** Called once ptop is running; lets the control plane tell "running" from "lost before start". */
  onStarted?: () => void;
  signal?: AbortSignal;
}

export type CaptureAnswer =
  | { outcome: "refused"; reason: string }
  | { outcome: "nothing_to_push"; reason: string; instrumentation?: Instrumentation }
  | { outcome: "failed"; reason: string; instrumentation?: Instrumentation }
  | { outcome: "pushed"; instrumentation: Instrumentation; profileGz: Uint8Array; partial: boolean };

const STDERR_KEEP = 4_096;

export async function runCapture(order: CaptureOrder, ctx: CaptureContext): Promise<CaptureAnswer> {
  const target = ctx.targets.find((t) => t.workload === order.workload);
  if (!target) {
    return { outcome: "refused", reason: `workload "${order.workload}" is not in this Profiler's target list` };
  }
  const probes = ctx.probes ?? DEFAULT_PROBES;
  const args = [
    ctx.collectorPath,
    "--targets", ctx.targetsFile,
    "--workload", target.workload,
    "--duration", String(order.duration_sec),
    "--warmup", String(order.warmup_sec),
    "--probes", probes.join(","),
  ];
  if (target.namespace) args.push("--namespace", target.namespace);
  if (ctx.frequencyHz !== undefined) args.push("--frequency", String(ctx.frequencyHz));

  let child: ReturnType<typeof Bun.spawn<"ignore", "pipe", "pipe">>;
  try {
    child = Bun.spawn(args, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  } catch (err) {
    return { outcome: "failed", reason: `could not start the collector ${ctx.collectorPath}: ${(err as Error).message}` };
  }
  ctx.onStarted?.();
  const onAbort = () => child.kill("SIGTERM");
  ctx.signal?.addEventListener("abort", onAbort, { once: true });

  const [stream, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  ctx.signal?.removeEventListener("abort", onAbort);

  const lastError = stderr.trim().split("\n").filter(Boolean).slice(-3).join(" | ").slice(-STDERR_KEEP);
  const instrumentation = stream ? instrumentationFromStream(stream, probes) : undefined;

  switch (code) {
    case PTOP_EXIT.ok:
    case PTOP_EXIT.interrupted:
      if (!instrumentation || instrumentation.attached.length === 0) {
        return { outcome: "failed", reason: `no probe attached: ${lastError || "collector reported none"}`, instrumentation };
      }
      // The control plane refuses a larger profile (and its tunnel a larger frame): say so here
      // instead of sending a frame that would end the tunnel.
      if (Buffer.byteLength(stream) > MAX_PROFILE_BYTES) {
        return { outcome: "failed", reason: new ProfileTooLargeError(`the collector's stream (${mib(Buffer.byteLength(stream))}) holds`).message, instrumentation };
      }
      return {
        outcome: "pushed",
        instrumentation,
        profileGz: gzipSync(stream),
        partial: code === PTOP_EXIT.interrupted,
      };
    case PTOP_EXIT.not_running:
      return { outcome: "nothing_to_push", reason: `no process of "${order.workload}" is running on this node`, instrumentation };
    case PTOP_EXIT.refused:
      return { outcome: "refused", reason: `collector refused: ${lastError || "workload not in its target list"}` };
    case PTOP_EXIT.no_privilege:
      return { outcome: "failed", reason: `collector cannot measure on this node: ${lastError}`, instrumentation };
    default:
      return {
        outcome: "failed",
        reason: `collector exited with ${child.signalCode ?? `code ${code}`}${lastError ? `: ${lastError}` : ""}`,
        instrumentation,
      };
  }
}
