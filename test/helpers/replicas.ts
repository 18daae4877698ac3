// Control-plane replicas and Profilers for the multi-replica tests: real `runner server` processes
// on one PostgreSQL, and Profilers made of the real enrolment, identity and tunnel client code that
// answer orders through a callback instead of running ptop.
import { createLogger } from "../../src/log.ts";
import { enrol } from "../../src/profiler/enrol-client.ts";
import { openIdentity, type Identity } from "../../src/profiler/identity.ts";
import { TunnelClient } from "../../src/profiler/tunnel-client.ts";
import type { CaptureOrder } from "../../src/protocol/tunnel.ts";
import { runnerCommand } from "./runner-bin.ts";

export interface Replica {
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  tunnelUrl: string;
  log: string[];
}

/** The URL travels in RUNNER_DATABASE_URL, as the guide says, not in argv where ps shows it. */
export function startReplica(databaseUrl: string): Promise<Replica> {
  return startServer([], { RUNNER_DATABASE_URL: databaseUrl });
}

/** A `runner server` process on any store: `["--data", DIR]`, or RUNNER_DATABASE_URL in `env`. */
export async function startServer(storeArgs: string[], env: Record<string, string> = {}): Promise<Replica> {
  const proc = Bun.spawn(
    [...runnerCommand(), "server", "--listen", "127.0.0.1:0", "--tunnel-listen", "127.0.0.1:0", ...storeArgs],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, RUNNER_LOG_LEVEL: "info", ...env } },
  );
  const log: string[] = [];
  let url = "";
  let tunnelUrl = "";
  const ready = Promise.withResolvers<void>();
  void (async () => {
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += new TextDecoder().decode(chunk);
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        log.push(line);
        try {
          const j = JSON.parse(line) as { msg?: string; url?: string };
          if (j.msg === "control plane listening") url = j.url!;
          if (j.msg === "tunnel listening") tunnelUrl = j.url!;
          if (url && tunnelUrl) ready.resolve();
        } catch {}
      }
    }
    ready.reject(new Error(`replica exited before listening: ${log.join("\n")} ${await new Response(proc.stderr).text()}`));
  })();
  await ready.promise;
  return { proc, url, tunnelUrl, log };
}

export interface TestProfiler {
  identity: Identity;
  received: Map<string, number>;
  client: TunnelClient;
  /** Drops the tunnel and opens a new one, e.g. to another replica behind the same address. */
  reconnect(tunnelUrl: string, running: string[]): Promise<void>;
  stop(): void;
}

/** Enrols through `enrolUrl`, connects to `tunnelUrl`; every capture order is counted, then passed to `onOrder`. */
export async function startProfiler(opts: {
  dir: string;
  tenant: string;
  instanceId: string;
  bootstrapToken: string;
  enrolUrl: string;
  tunnelUrl: string;
  onOrder: (order: CaptureOrder, client: TunnelClient) => void;
}): Promise<TestProfiler> {
  const identity = await openIdentity(opts.dir, opts.instanceId);
  await enrol({ enrolUrl: opts.enrolUrl, tenant: opts.tenant, instanceId: opts.instanceId, bootstrapToken: opts.bootstrapToken, publicKeyB64: identity.publicKey });
  const received = new Map<string, number>();
  const connect = async (tunnelUrl: string, running: string[]) => {
    const up = Promise.withResolvers<void>();
    const client: TunnelClient = new TunnelClient({
      url: tunnelUrl,
      identity: { tenant: opts.tenant, instanceId: opts.instanceId, sign: (m) => identity.sign(m) },
      logger: createLogger("test-profiler", "silent"),
      running: () => running,
      onUp: () => up.resolve(),
      onMessage: (msg) => {
        if (msg.type !== "capture") return;
        received.set(msg.order.request_id, (received.get(msg.order.request_id) ?? 0) + 1);
        opts.onOrder(msg.order, client);
      },
    });
    client.start();
    await up.promise;
    return client;
  };
  const p: TestProfiler = {
    identity,
    received,
    client: await connect(opts.tunnelUrl, []),
    async reconnect(tunnelUrl, running) {
      p.client.stop();
      p.client = await connect(tunnelUrl, running);
    },
    stop() {
      p.client.stop();
      identity.release();
    },
  };
  return p;
}

export function admin(databaseUrl: string, ...args: string[]): string {
  const r = Bun.spawnSync([...runnerCommand(), "admin", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, RUNNER_DATABASE_URL: databaseUrl } });
  if (r.exitCode !== 0) throw new Error(`admin ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

/** The last line of an admin command that prints a secret once. */
export const lastLine = (s: string) => s.split("\n").at(-1)!;
