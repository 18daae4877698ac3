// Composes the control plane HTTP app: health, OpenAPI, enrolment (profiler-plane.ts), the policy
// docs, the web app and the capture API; the tunnel is served beside it by start-server.ts.
import { Elysia } from "elysia";
import type { Logger } from "../log.ts";
import { DEFAULT_RATE_LIMIT, queueCaptureRequest, type HttpAnswer, type QueueCaptureDeps, type RateLimit } from "./captures/queue-capture.ts";
import { captureStatusRequest } from "./captures/capture-status.ts";
import { allowedMethods } from "./method-not-allowed.ts";
import { openApiDocument } from "./openapi.ts";
import { enrolRoutes } from "./profiler-plane.ts";
import { docsRoutes } from "./docs/routes.ts";
import { webRoutes } from "./web/routes.ts";
import type { Store } from "./store/store.ts";
import { presentedToken } from "./tokens/authenticate.ts";
import { presence, type Presence } from "./dispatch/presence.ts";

export interface AppOptions {
  store: Store;
  logger: Logger;
  rateLimit?: RateLimit;
  now?: () => number;
  /** Served over TLS: every answer tells browsers to keep to HTTPS (Strict-Transport-Security). */
  hsts?: boolean;
  /** Which Profilers hold a tunnel now (Settings); without it, what the store alone can tell. */
  presence?: Presence;
}

// One year, this host only: the operator's other subdomains may still serve plain HTTP.
const HSTS = "max-age=31536000";

function reply(set: { status?: number | string; headers: Record<string, string | number> }, answer: HttpAnswer) {
  set.status = answer.status;
  if (answer.headers) Object.assign(set.headers, answer.headers);
  return answer.body;
}

/** The options with their defaults filled in: what the routes and the Profiler plane share. */
export function appDeps(opts: AppOptions): QueueCaptureDeps {
  return {
    store: opts.store,
    logger: opts.logger,
    rateLimit: opts.rateLimit ?? DEFAULT_RATE_LIMIT,
    now: opts.now ?? Date.now,
  };
}

export function createApp(opts: AppOptions) {
  const deps = appDeps(opts);
  const openapi = openApiDocument();
  // The finished app's routes, read at request time to tell 405 from 404.
  const served: { app?: { routes: ReadonlyArray<{ method: string; path: string }> } } = {};
  const app = new Elysia()
    .onRequest(({ set }) => {
      if (opts.hsts) set.headers["strict-transport-security"] = HSTS;
    })
    .onError(({ code, error, set, request }) => {
      if (code === "NOT_FOUND") {
        const allow = allowedMethods(served.app?.routes ?? [], new URL(request.url).pathname);
        if (allow.length > 0 && !allow.includes(request.method)) {
          set.status = 405;
          set.headers.allow = allow.join(", ");
          return { error: `method ${request.method} not allowed here; use ${allow.join(" or ")}` };
        }
        set.status = 404;
        return { error: "not found" };
      }
      if (code === "PARSE" || code === "VALIDATION") {
        set.status = 400;
        return { error: "malformed request" };
      }
      // Anything else is our bug: log it (the path only, never the query with its token) and say 500.
      deps.logger.error({ err: error, method: request.method, path: new URL(request.url).pathname }, "unhandled error");
      set.status = 500;
      return { error: "internal error" };
    })
    .get("/healthz", async ({ set }) => {
      await deps.store.ping();
      set.status = 200;
      return { status: "ok" };
    })
    .get("/openapi.json", () => openapi)
    .use(enrolRoutes(deps))
    // {docs_url} = {base_url}/docs: the policy files compiled into the executable, byte for byte.
    .use(docsRoutes({}))
    .use(webRoutes({ ...deps, presence: opts.presence ?? presence(opts.store, () => null) }))
    .post(
      "/api/profiling/captures",
      async ({ request, query, set }) =>
        reply(set, await queueCaptureRequest(deps, request, presentedToken(request.headers.get("authorization"), query.token))),
      { parse: "none" },
    )
    .get("/api/profiling/captures/:id", async ({ request, params, query, set }) =>
      reply(set, await captureStatusRequest(deps.store, params.id, presentedToken(request.headers.get("authorization"), query.token))),
    );
  served.app = app;
  return app;
}

export type App = ReturnType<typeof createApp>;
