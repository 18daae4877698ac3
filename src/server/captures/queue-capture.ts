// POST /api/profiling/captures, independent of the HTTP framework.
// Check order (each step only runs when the previous passed):
//   401 token missing/malformed/unknown/revoked -> 403 Profiler not enabled for the org
//   -> 413/400 body -> 202 deduped (identical request in flight) -> 429 org over its hourly limit -> 202 queued.
// Only a newly queued request counts toward the limit; 4xx answers and deduped 202s do not.
import type { Logger } from "../../log.ts";
import { textProblem } from "../../protocol/names.ts";
import { parseCaptureRequest, type CaptureAccepted } from "../../protocol/capture-request.ts";
import type { Store } from "../store/store.ts";
import { authenticateCaptureToken } from "../tokens/authenticate.ts";
import { MAX_CAPTURE_BODY_BYTES, readBoundedBody, type BodyResult } from "./read-body.ts";
import type { Org } from "../store/types.ts";

export interface RateLimit {
  limit: number;
  windowMs: number;
}
export const DEFAULT_RATE_LIMIT: RateLimit = { limit: 20, windowMs: 60 * 60 * 1000 };

export interface QueueCaptureDeps {
  store: Store;
  logger: Logger;
  rateLimit: RateLimit;
  now: () => number;
}

export interface HttpAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export async function queueCaptureRequest(deps: QueueCaptureDeps, request: Request, token: string | null): Promise<HttpAnswer> {
  const auth = await authenticateCaptureToken(deps.store, token);
  if (!auth.ok) {
    deps.logger.debug({ status: 401 }, "capture request refused: unauthenticated");
    return { status: 401, body: { error: auth.error }, headers: { "www-authenticate": 'Bearer realm="runner"' } };
  }
  const { org, tokenName } = auth.principal;
  return queueAs(deps, org, tokenName, () => readBoundedBody(request, MAX_CAPTURE_BODY_BYTES));
}

/**
 * Everything after authentication, shared by the API and the app's capture form (which passes the
 * signed-in member as requester): the opt-in 403, the body rules, the org's rate limit, dedupe.
 */
export async function queueAs(deps: QueueCaptureDeps, org: Org, requester: string, readBody: () => Promise<BodyResult>): Promise<HttpAnswer> {
  const who = { org: org.name, requester };
  if (!org.profilerEnabled) {
    deps.logger.debug({ ...who, status: 403 }, "capture request refused: Profiler not enabled");
    return {
      status: 403,
      body: { error: `the Profiler is not enabled for organization "${org.name}"; an owner or admin enables it in Settings` },
    };
  }
  // The requester (a token's name, a member's email) is printed beside the record like its fields:
  // one created before names were checked is refused rather than stored.
  const requesterProblem = textProblem(requester);
  if (requesterProblem) return { status: 400, body: { error: `requester (this token's name or member's email) ${requesterProblem}; use a token with a plain name`, field: "requester" } };
  const raw = await readBody();
  if (!raw.ok) return { status: raw.status, body: { error: raw.error } };
  const parsed = parseCaptureRequest(raw.text);
  if (!parsed.ok) {
    deps.logger.debug({ ...who, status: 400, field: parsed.field }, "capture request refused: invalid body");
    return { status: 400, body: parsed.field !== null ? { error: parsed.error, field: parsed.field } : { error: parsed.error } };
  }
  const result = await deps.store.queueCapture(org.id, requester, parsed.value, { ...deps.rateLimit, now: deps.now() });
  if (result.kind === "rate_limited") {
    deps.logger.debug({ ...who, status: 429 }, "capture request refused: rate limited");
    const retry = result.retryAfterSeconds;
    return {
      status: 429,
      body: { error: `organization "${org.name}" reached ${deps.rateLimit.limit} capture requests per hour; retry in ${retry} s`, retry_after_seconds: retry },
      headers: { "retry-after": String(retry) },
    };
  }
  const body: CaptureAccepted = { request_id: result.requestId, status: "queued", deduped: result.kind === "deduped" };
  // A new request is an event worth a line; a deduped repeat changes nothing, so it stays at debug.
  const fields = { ...who, request_id: body.request_id, workload: parsed.value.workload, version: parsed.value.version };
  if (body.deduped) deps.logger.debug(fields, "capture request deduped");
  else deps.logger.info(fields, "capture request queued");
  return { status: 202, body };
}
