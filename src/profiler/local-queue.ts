// The sidecar endpoint on RUNNER_LOCAL_LISTEN: a workload in the same pod or host queues a capture
// with the same request and the same capture token as the public API. The Profiler decides
// nothing: it bridges the request over the tunnel and returns the control plane's answer, so every
// rule (token, opt-in, validation, rate limit, dedupe) is applied in one place. While the tunnel is
// down it answers 503 with Retry-After — a request is never silently dropped.

import { parseListen } from "../config/profiler-env.ts";
import { listenOrExplain } from "../listen-failure.ts";
import type { Logger } from "../log.ts";
import type { ProfilerMessage, ServerMessage } from "../protocol/tunnel.ts";

const CAPTURE_PATH = "/api/profiling/captures";
const MAX_BODY = 16 * 1024;
const ANSWER_TIMEOUT_MS = 15_000;

type Answer = Extract<ServerMessage, { type: "local_capture_answer" }>;

export interface LocalQueueOptions {
  listen: string;
  logger: Logger;
  send: (msg: ProfilerMessage) => boolean;
}

export class LocalQueue {
  private pending = new Map<string, (a: Answer) => void>();
  private server: ReturnType<typeof Bun.serve> | null = null;

  constructor(private readonly opts: LocalQueueOptions) {}

  start(): string {
    // The boot validated RUNNER_LOCAL_LISTEN with this same parser.
    const addr = parseListen(this.opts.listen);
    if (!addr) throw new Error(`RUNNER_LOCAL_LISTEN must be HOST:PORT, got "${this.opts.listen}"`);
    const { host: hostname, port } = addr;
    this.server = listenOrExplain("RUNNER_LOCAL_LISTEN", hostname, port, () =>
      Bun.serve({ hostname, port, maxRequestBodySize: MAX_BODY, fetch: (req) => this.handle(req) }),
    );
    return `http://${hostname}:${this.server.port}`;
  }

  stop(): void {
    this.server?.stop(true);
    for (const resolve of this.pending.values()) resolve({ type: "local_capture_answer", id: "", status: 503, body: unavailable("Profiler stopping"), retry_after: "5" });
    this.pending.clear();
  }

  /** Called with the control plane's answer to a bridged request. */
  answer(a: Answer): void {
    this.pending.get(a.id)?.(a);
    this.pending.delete(a.id);
  }

  private async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    if (url.pathname === "/healthz") return new Response("ok\n");
    if (url.pathname !== CAPTURE_PATH) return Response.json({ error: "not found" }, { status: 404 });
    if (req.method !== "POST") return Response.json({ error: "use POST" }, { status: 405, headers: { allow: "POST" } });
    const queryToken = url.searchParams.get("token");
    const authorization = req.headers.get("authorization") ?? (queryToken ? `Bearer ${queryToken}` : "");
    const body = await req.text();
    const id = crypto.randomUUID();
    const answered = new Promise<Answer>((resolve) => {
      this.pending.set(id, resolve);
      setTimeout(() => {
        if (this.pending.delete(id)) resolve({ type: "local_capture_answer", id, status: 503, body: unavailable("the control plane did not answer in time"), retry_after: "5" });
      }, ANSWER_TIMEOUT_MS);
    });
    if (!this.opts.send({ type: "local_capture", id, authorization, body })) {
      this.pending.delete(id);
      this.opts.logger.warn("local capture request refused with 503: tunnel down");
      return Response.json(JSON.parse(unavailable("the tunnel to the control plane is down")), { status: 503, headers: { "retry-after": "5" } });
    }
    const a = await answered;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (a.retry_after) headers["retry-after"] = a.retry_after;
    return new Response(a.body, { status: a.status, headers });
  }
}

function unavailable(why: string): string {
  return JSON.stringify({ error: `capture not queued: ${why}; retry later`, retry_after_seconds: 5 });
}
