// The Profiler after a successful boot: enrol, keep the tunnel up, answer capture orders, bridge
// the sidecar endpoint. It never decides on its own to measure: the only thing that starts ptop is
// a capture order that arrived over the tunnel.

import { createLogger } from "../log.ts";
import { clipReason, type ProfilerMessage, type ServerMessage, type CaptureOrder } from "../protocol/tunnel.ts";
import type { BootResult } from "./boot/boot-result.ts";
import { runCapture, type CaptureAnswer } from "./capture.ts";
import { enrol, EnrolError } from "./enrol-client.ts";
import { backoffDelayMs } from "./backoff.ts";
import { LocalQueue } from "./local-queue.ts";
import { trustedCertificates } from "./trust.ts";
import { TunnelClient } from "./tunnel-client.ts";

export async function runSupervisor(boot: BootResult): Promise<number> {
  const log = createLogger("profiler");
  const { config } = boot;
  const { targets } = boot;
  const ca = trustedCertificates(config.caFile);

  const running = new Map<string, AbortController>();
  // The tunnel exists once enrolment succeeded; until then a sidecar's request gets a 503.
  let tunnel: TunnelClient | undefined;
  const send = (msg: ProfilerMessage) => tunnel?.send(msg) ?? false;
  // Results that could not be sent while the tunnel was down are delivered after reconnecting.
  const undelivered: ProfilerMessage[] = [];
  const deliver = (msg: ProfilerMessage) => {
    if (!send(msg)) undelivered.push(msg);
  };

  // Bound before enrolment, which may wait for the control plane indefinitely: a busy
  // RUNNER_LOCAL_LISTEN address fails the start, naming it.
  const local = new LocalQueue({ listen: config.localListen, logger: log, send });
  const localUrl = local.start();
  log.info({ local: localUrl }, "sidecar capture endpoint listening");

  await enrolUntilAccepted(boot, ca, log);

  const onOrder = (order: CaptureOrder) => {
    if (running.has(order.request_id)) return; // redelivered after a reconnect: already on it
    const abort = new AbortController();
    running.set(order.request_id, abort);
    log.info({ request_id: order.request_id, workload: order.workload, kind: order.kind }, "capture order received");
    void runCapture(order, {
      collectorPath: config.collectorPath,
      targetsFile: config.targetsFile,
      targets,
      probes: config.probes,
      frequencyHz: config.frequencyHz,
      signal: abort.signal,
      onStarted: () => deliver({ type: "answer", request_id: order.request_id, answer: "running" }),
    })
      .then((answer) => deliver(resultMessage(order.request_id, answer)))
      .catch((err: Error) => deliver({ type: "result", request_id: order.request_id, outcome: "failed", reason: clipReason(`supervisor error: ${err.message}`) }))
      .finally(() => {
        running.delete(order.request_id);
        log.info({ request_id: order.request_id }, "capture finished");
      });
  };

  tunnel = new TunnelClient({
    url: config.tunnelUrl,
    identity: { tenant: config.tenant, instanceId: config.instanceId, sign: (m) => boot.identity.sign(m) },
    ca,
    logger: log,
    running: () => [...running.keys()],
    onUp: () => {
      while (undelivered.length && send(undelivered[0]!)) undelivered.shift();
    },
    onMessage: (msg: ServerMessage) => {
      if (msg.type === "capture") onOrder(msg.order);
      else if (msg.type === "local_capture_answer") local.answer(msg);
    },
  });
  tunnel.start();

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal, running: running.size }, "stopping: interrupting running captures");
      for (const a of running.values()) a.abort();
      const deadline = Date.now() + 5_000;
      const wait = setInterval(() => {
        if (running.size === 0 || Date.now() > deadline) {
          clearInterval(wait);
          resolve();
        }
      }, 50);
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  // Give the final results a moment to leave before the socket closes.
  await Bun.sleep(200);
  tunnel.stop();
  local.stop();
  boot.identity.release();
  return 0;
}

function resultMessage(requestId: string, a: CaptureAnswer): ProfilerMessage {
  switch (a.outcome) {
    case "refused":
      return { type: "answer", request_id: requestId, answer: "refused", reason: clipReason(a.reason) };
    case "pushed":
      return {
        type: "result",
        request_id: requestId,
        outcome: "pushed",
        instrumentation: a.instrumentation,
        reason: a.partial ? "capture interrupted: the profile covers part of the window" : undefined,
        profile_gz_b64: Buffer.from(a.profileGz).toString("base64"),
      };
    default:
      return { type: "result", request_id: requestId, outcome: a.outcome, reason: a.reason === undefined ? undefined : clipReason(a.reason), instrumentation: a.instrumentation };
  }
}

async function enrolUntilAccepted(boot: BootResult, ca: string[] | undefined, log: ReturnType<typeof createLogger>): Promise<void> {
  const { config } = boot;
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await enrol({
        enrolUrl: config.enrolUrl,
        tenant: config.tenant,
        instanceId: config.instanceId,
        bootstrapToken: config.bootstrapToken,
        publicKeyB64: boot.identity.publicKey,
        ca,
      });
      log.info({ instance_id: res.instance_id, already_enrolled: res.already_enrolled }, "enrolled");
      return;
    } catch (err) {
      if (!(err instanceof EnrolError) || !err.retryable) throw err;
      const delay = backoffDelayMs(attempt, 1_000, 60_000);
      log.warn({ status: err.status, retry_in_ms: delay }, err.message);
      await Bun.sleep(delay);
    }
  }
}
