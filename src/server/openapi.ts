// /openapi.json, generated from the TypeBox schemas the handler validates with (TypeBox schemas
// are JSON Schema), so the document cannot drift from the code. A plugin would add a dependency
// to publish one endpoint.
import { CaptureAccepted, CaptureRequestBody, ErrorBody, RateLimitedBody } from "../protocol/capture-request.ts";
import { CaptureStatusBody, ChangedFunction, DiffSummary } from "../protocol/capture-status.ts";
import { RUNNER_VERSION } from "../version.ts";

const json = (schema: unknown) => ({ "application/json": { schema } });

export function openApiDocument() {
  return {
    openapi: "3.1.0",
    info: { title: "runner control plane", version: RUNNER_VERSION },
    components: {
      securitySchemes: {
        captureToken: { type: "http", scheme: "bearer", description: "capture token (rpcap_…)" },
        captureTokenQuery: { type: "apiKey", in: "query", name: "token", description: "capture token, for CI steps that cannot set headers" },
        readToken: { type: "http", scheme: "bearer", description: "read token (rpread_…): reads capture status, outcome and verdict, nothing else" },
        readTokenQuery: { type: "apiKey", in: "query", name: "token", description: "read token, for CI steps that cannot set headers" },
      },
      schemas: { CaptureRequestBody, CaptureAccepted, ErrorBody, RateLimitedBody, CaptureStatusBody, DiffSummary, ChangedFunction },
    },
    paths: {
      "/healthz": { get: { summary: "readiness", responses: { "200": { description: "ready" } } } },
      "/api/profiling/captures": {
        post: {
          summary: "Queue a capture",
          description:
            "Checks in order: 401 (token), 403 (Profiler opt-in), 413/400 (body), 429 (20 newly queued requests per organization per hour; deduped answers and refusals do not count), 202. A 202 means queued, not captured.",
          security: [{ captureToken: [] }, { captureTokenQuery: [] }],
          requestBody: { required: true, content: json(CaptureRequestBody) },
          responses: {
            "202": { description: "queued (or an identical request already in flight: deduped true)", content: json(CaptureAccepted) },
            "400": { description: "body failed validation; names the field", content: json(ErrorBody) },
            "401": { description: "token missing, invalid or revoked", content: json(ErrorBody) },
            "403": { description: "Profiler not enabled for the organization", content: json(ErrorBody) },
            "413": { description: "body too large", content: json(ErrorBody) },
            "429": {
              description: "organization over its hourly limit",
              headers: { "Retry-After": { schema: { type: "integer" } } },
              content: json(RateLimitedBody),
            },
          },
        },
      },
      "/api/profiling/captures/{id}": {
        get: {
          summary: "A capture's status, outcome and verdict",
          description:
            "With a read token (a capture token reads nothing: 401). For a pushed capture, `diff` summarises its version's diff (the verdict, its sentence, the changed functions); `verdict_pending` is true until the diff that includes this capture is computed. Poll until `status` is done and `verdict_pending` is false (`runner capture --wait` does).",
          security: [{ readToken: [] }, { readTokenQuery: [] }],
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" }, description: "the request_id of the 202" }],
          responses: {
            "200": { description: "the capture", content: json(CaptureStatusBody) },
            "401": { description: "read token missing, invalid or revoked", content: json(ErrorBody) },
            "404": { description: "unknown id, or a capture of another organization or of a workload outside the token's scope", content: json(ErrorBody) },
          },
        },
      },
    },
  };
}
