// A request goes to every live Profiler of the tenant (daemon-set routing: the control plane does
// not know the target lists). Each answers for its node; the record carries one merged outcome.
//
//   any pushed                         → pushed (several nodes may have measured; the first profile is kept)
//   else any failed                    → failed, with the node's reason
//   else any nothing_to_push           → nothing_to_push (the target is not running on any node that lists it)
//   else all refused                   → failed: the workload is in no Profiler's target list
//
// Refusals beside a nothing_to_push are expected in a fleet (most nodes do not list every workload)
// and do not turn the outcome into a failure.

import type { Instrumentation } from "../../protocol/tunnel.ts";
import type { RecordInstrumentation } from "../store/types.ts";

/** The wire's probe lists (what the Profiler saw) as the record keeps them (counts + what is missing). */
export function toRecordInstrumentation(i: Instrumentation): RecordInstrumentation {
  return {
    probes_requested: i.requested.length,
    probes_attached: i.attached.length,
    missing: i.not_attached,
    ...(i.incomplete?.length ? { incomplete: i.incomplete } : {}),
    ...(i.lost?.length ? { lost: i.lost } : {}),
    ...(i.notes?.length ? { notes: i.notes } : {}),
  };
}

export type NodeAnswer =
  | { state: "pending" }
  | { state: "running"; since: number }
  | { state: "refused"; reason: string }
  | { state: "nothing_to_push"; reason: string }
  | { state: "failed"; reason: string; instrumentation?: Instrumentation }
  | { state: "pushed"; instrumentation: Instrumentation; note?: string };

export type MergedOutcome =
  | { done: false }
  | { done: true; outcome: "pushed"; instrumentation: Instrumentation; reason: string | null; from: string }
  | { done: true; outcome: "nothing_to_push" | "failed"; reason: string; instrumentation: Instrumentation | null };

export function mergeAnswers(answers: ReadonlyMap<string, NodeAnswer>): MergedOutcome {
  const entries = [...answers.entries()];
  if (entries.length === 0 || entries.some(([, a]) => a.state === "pending" || a.state === "running")) return { done: false };

  const pushed = entries.find(([, a]) => a.state === "pushed");
  if (pushed) {
    const a = pushed[1] as Extract<NodeAnswer, { state: "pushed" }>;
    return { done: true, outcome: "pushed", instrumentation: a.instrumentation, reason: a.note ?? null, from: pushed[0] };
  }
  const failed = entries.filter(([, a]) => a.state === "failed") as [string, Extract<NodeAnswer, { state: "failed" }>][];
  if (failed.length) {
    const reason = failed.map(([node, a]) => (failed.length > 1 || entries.length > 1 ? `${node}: ${a.reason}` : a.reason)).join("; ");
    return { done: true, outcome: "failed", reason, instrumentation: failed[0]![1].instrumentation ?? null };
  }
  const nothing = entries.find(([, a]) => a.state === "nothing_to_push") as [string, Extract<NodeAnswer, { state: "nothing_to_push" }>] | undefined;
  const refused = entries.filter(([, a]) => a.state === "refused") as [string, Extract<NodeAnswer, { state: "refused" }>][];
  if (nothing) {
    const others = refused.length ? ` (${refused.length} other Profiler${refused.length > 1 ? "s" : ""} do not list it)` : "";
    return { done: true, outcome: "nothing_to_push", reason: `${nothing[1].reason}${others}`, instrumentation: null };
  }
  const first = refused[0]![1].reason;
  return {
    done: true,
    outcome: "failed",
    reason: refused.length === 1 ? first : `no Profiler lists this workload (${refused.length} refused): ${first}`,
    instrumentation: null,
  };
}
