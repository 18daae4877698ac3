// Starts the control plane on a listen address; used by `runner server`, the demo and tests.
import { listenOrExplain } from "../listen-failure.ts";
import type { Logger } from "../log.ts";
import { appDeps, createApp, type AppOptions } from "./app.ts";
import type { DispatchingStore } from "./dispatch/create.ts";
import type { Store } from "./store/store.ts";
import { startProfilerPlane } from "./profiler-plane.ts";
import { presence } from "./dispatch/presence.ts";
import { scheduleRetention } from "./retention/apply.ts";

export interface ServerOptions extends AppOptions {
  /** A store its Profilers' captures can be dispatched on (openStore's). */
  store: Store & DispatchingStore;
  hostname: string;
  port: number;
  tls?: { certFile: string; keyFile: string };
  /** Parsed and kept for the tunnel listener (wired by the enrolment/tunnel module). */
  tunnelListen?: { hostname: string; port: number };
  /** How often each organization's retention policy is applied (default hourly). */
  retentionIntervalMs?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  store: Store;
  logger: Logger;
  app: ReturnType<typeof createApp>;
  /** wss://…/tunnel when --tunnel-listen was given */
  tunnelUrl?: string;
  stop(): Promise<void>;
}

// Hard cap in Bun itself; the capture route enforces its own, smaller limit with a 413.
const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  // The tunnel's dispatcher starts after the app; Settings asks it once it runs.
  const local: { dispatcher: { liveProfilers(orgName: string): string[] } | null } = { dispatcher: null };
  const app = createApp({ ...opts, hsts: opts.tls !== undefined, presence: presence(opts.store, () => local.dispatcher) });
  // Read once: the HTTP listener and the tunnel listener serve the same certificate.
  const tls = opts.tls ? { cert: await Bun.file(opts.tls.certFile).text(), key: await Bun.file(opts.tls.keyFile).text() } : undefined;
  // Elysia's Bun adapter turns SO_REUSEPORT on by default: a second server on a busy port then
  // starts silently and the kernel splits requests between two unrelated stores. Off, a busy
  // address fails here, naming it.
  listenOrExplain("--listen", opts.hostname, opts.port, () =>
    app.listen({ hostname: opts.hostname, port: opts.port, tls, maxRequestBodySize: MAX_REQUEST_BODY_BYTES, reusePort: false }),
  );
  const server = app.server;
  if (!server) throw new Error(`could not listen on ${opts.hostname}:${opts.port}`);
  const host = opts.hostname.includes(":") ? `[${opts.hostname}]` : opts.hostname;
  const port = server.port ?? opts.port;
  // The tunnel listener and dispatcher run only where Profilers connect (--tunnel-listen).
  const plane = opts.tunnelListen
    ? await startProfilerPlane({
        ...appDeps(opts),
        store: opts.store,
        tunnel: { ...opts.tunnelListen, tls },
      }).catch(async (err) => {
        await app.stop(true);
        throw err;
      })
    : null;
  local.dispatcher = plane?.dispatcher ?? null;
  const stopRetention = scheduleRetention(opts.store, opts.logger, opts.now ?? Date.now, opts.retentionIntervalMs);
  return {
    url: `${tls ? "https" : "http"}://${host}:${port}`,
    port,
    store: opts.store,
    logger: opts.logger,
    app,
    tunnelUrl: plane?.tunnelUrl,
    async stop() {
      stopRetention();
      plane?.stop();
      await app.stop(true);
    },
  };
}
