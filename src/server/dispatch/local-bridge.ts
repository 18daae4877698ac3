// A sidecar's capture request, bridged over its Profiler's tunnel (`local_capture`), answered with
// the public API's rules by the server's handler, or 503 when there is none or it failed.
import type { TunnelSession } from "../tunnel/listener.ts";

export type LocalCaptureHandler = (authorization: string, body: string) => Promise<{ status: number; body: string; retryAfter?: string }>;

export async function bridgeLocal(
  session: TunnelSession,
  msg: { id: string; authorization: string; body: string },
  handler: LocalCaptureHandler | undefined,
): Promise<void> {
  const answer = handler
    ? await handler(msg.authorization, msg.body).catch(() => ({ status: 503, body: '{"error":"control plane error"}', retryAfter: "5" }))
    : { status: 503, body: '{"error":"local capture bridging is not enabled"}', retryAfter: "5" };
  session.send({ type: "local_capture_answer", id: msg.id, status: answer.status, body: answer.body, retry_after: answer.retryAfter });
}
