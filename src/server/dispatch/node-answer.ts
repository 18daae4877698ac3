// A Profiler's answer or result message as the per-node answer both dispatchers record (merge.ts
// merges them), with the pushed profile's bytes. Pure: the clock is passed in.
import type { ProfilerMessage } from "../../protocol/tunnel.ts";
import type { NodeAnswer } from "./merge.ts";
import { answerReason } from "./order-rules.ts";

export type AnswerMessage = Extract<ProfilerMessage, { type: "answer" | "result" }>;

export function nodeAnswer(msg: AnswerMessage, now: number): { answer: NodeAnswer; profile: Uint8Array | null } {
  if (msg.type === "answer") {
    if (msg.answer === "running") return { answer: { state: "running", since: now }, profile: null };
    return { answer: { state: msg.answer, reason: msg.reason ?? msg.answer }, profile: null };
  }
  if (msg.outcome === "pushed") {
    if (!msg.instrumentation || !msg.profile_gz_b64) return { answer: { state: "failed", reason: answerReason.pushedWithoutProfile }, profile: null };
    return { answer: { state: "pushed", instrumentation: msg.instrumentation, note: msg.reason }, profile: Buffer.from(msg.profile_gz_b64, "base64") };
  }
  if (msg.outcome === "failed") return { answer: { state: "failed", reason: msg.reason ?? answerReason.failed, instrumentation: msg.instrumentation }, profile: null };
  return { answer: { state: "nothing_to_push", reason: msg.reason ?? answerReason.nothingToPush }, profile: null };
}
