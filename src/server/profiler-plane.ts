// The Profiler-facing half of the control plane: the enrolment route, the tunnel listener and the
// dispatcher that connects queued requests to live Profilers. Composed by start-server.ts.

import { Elysia } from "elysia";
import type { Logger } from "../log.ts";
import { ENROL_PATH } from "../protocol/enrol.ts";
import { createDispatcher, type DispatchingStore } from "./dispatch/create.ts";
import { enrolRequest } from "./enrol/enrol.ts";
import { queueCaptureRequest, type RateLimit } from "./captures/queue-capture.ts";
import { storeAndDiff } from "./records/diff-on-arrival.ts";
import type { Store } from "./store/store.ts";
import { startTunnelListener } from "./tunnel/listener.ts";
import { presentedToken } from "./tokens/authenticate.ts";

export interface ProfilerPlaneOptions {
  store: Store & DispatchingStore;
  logger: Logger;
  rateLimit: RateLimit;
  now: () => number;
}

export function enrolRoutes(deps: { store: Store; logger: Logger; now: () => number }) {
  return new Elysia().post(
    ENROL_PATH,
    async ({ request, set }) => {
      const answer = await enrolRequest(deps, request);
      set.status = answer.status;
      return answer.body;
    },
    { parse: "none" },
  );
}

export async function startProfilerPlane(
  opts: ProfilerPlaneOptions & { tunnel: { hostname: string; port: number; tls?: { cert: string; key: string } } },
) {
  const { store, logger, now } = opts;
  const dispatcher = createDispatcher({
    store,
    logger,
    now,
    onProfile: (record, gz, instance) => storeAndDiff({ store, logger, now }, record, gz, instance),
    // A sidecar request gets exactly the public endpoint's treatment (token, opt-in, limits, dedupe).
    onLocalCapture: async (authorization, body) => {
      const request = new Request("http://local/api/profiling/captures", {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body,
      });
      const answer = await queueCaptureRequest({ store, logger, rateLimit: opts.rateLimit, now }, request, presentedToken(authorization, null));
      if (answer.status === 202) dispatcher.kick();
      return { status: answer.status, body: JSON.stringify(answer.body), retryAfter: answer.headers?.["retry-after"] };
    },
  });
  await dispatcher.start();
  const listen = () => startTunnelListener({
    hostname: opts.tunnel.hostname,
    port: opts.tunnel.port,
    tls: opts.tunnel.tls,
    logger,
    events: {
      lookup: async (tenant, instanceId) => {
        const i = await store.findInstance(tenant, instanceId);
        return i && i.artifactClass === "profiler" ? { orgId: i.orgId, orgName: i.orgName, publicKey: i.publicKey, profilerEnabled: i.profilerEnabled } : null;
      },
      up: (s, running) => dispatcher.up(s, running),
      down: (s, why) => dispatcher.down(s, why),
      message: (s, m) => dispatcher.message(s, m),
    },
  });
  let listener: ReturnType<typeof startTunnelListener>;
  try {
    listener = listen();
  } catch (err) {
    dispatcher.stop();
    throw err;
  }
  logger.info({ url: listener.url }, "tunnel listening");
  return {
    dispatcher,
    tunnelUrl: listener.url,
    tunnelPort: listener.port,
    stop() {
      dispatcher.stop();
      listener.stop();
    },
  };
}
