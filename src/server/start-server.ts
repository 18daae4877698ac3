// Starts the control plane on a listen address; used by `runner server`, the demo and tests.
import type { Logger } from "../log.ts";
import { createApp, type AppOptions } from "./app.ts";
import type { Store } from "./store/store.ts";

export interface ServerOptions extends AppOptions {
  hostname: string;
  port: number;
  tls?: { certFile: string; keyFile: string };
  /** Parsed and kept for the tunnel listener (wired by the enrolment/tunnel module). */
  tunnelListen?: { hostname: string; port: number };
}

export interface RunningServer {
  url: string;
  port: number;
  store: Store;
  logger: Logger;
  app: ReturnType<typeof createApp>;
  stop(): Promise<void>;
}

// Hard cap in Bun itself; the capture route enforces its own, smaller limit with a 413.
const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const app = createApp(opts);
  const tls = opts.tls ? { cert: Bun.file(opts.tls.certFile), key: Bun.file(opts.tls.keyFile) } : undefined;
  app.listen({ hostname: opts.hostname, port: opts.port, tls, maxRequestBodySize: MAX_REQUEST_BODY_BYTES });
  const server = app.server;
  if (!server) throw new Error(`could not listen on ${opts.hostname}:${opts.port}`);
  const host = opts.hostname.includes(":") ? `[${opts.hostname}]` : opts.hostname;
  const port = server.port ?? opts.port;
  return {
    url: `${tls ? "https" : "http"}://${host}:${port}`,
    port,
    store: opts.store,
    logger: opts.logger,
    app,
    async stop() {
      await app.stop(true);
    },
  };
}
