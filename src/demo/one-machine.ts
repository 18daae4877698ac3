// The whole system on one machine, as real processes: a control plane (`runner server` over TLS
// with its tunnel listener), a Profiler supervisor running as an unprivileged user with a setcap'd
// ptop, and workloads run as that user. Used by `runner demo` and by test/e2e.
import type { Subprocess } from "bun";
import { chmodSync, chownSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  asUnprivileged,
  ensureTracefs,
  freePort,
  installCollector,
  makeTlsCertificate,
  ownedByUnprivileged,
  runnerExecutable,
  UNPRIVILEGED_UID,
} from "./machine.ts";

export interface OneMachineOptions {
  dir: string;
  collectorSource: string;
  org?: string;
  /** Workloads in the Profiler's target list. */
  targets: string[];
  /** Mount tracefs when absent (full instrumentation). Default true. */
  tracefs?: boolean;
  logLevel?: string;
}

export interface CaptureBody {
  workload: string;
  version: string;
  env?: string;
  kind?: "head" | "replicate";
  duration_sec?: number;
  warmup_sec?: number;
}

export class OneMachine {
  readonly org: string;
  runner = "";
  collector = "";
  apiUrl = "";
  tunnelUrl = "";
  captureToken = "";
  private bootstrapToken = "";
  private tls = { cert: "", key: "" };
  private apiPort = 0;
  private tunnelPort = 0;
  private server: Subprocess | null = null;
  private readonly profilers = new Map<string, Subprocess>();
  private readonly workloads: Subprocess[] = [];
  private undoTracefs: () => Promise<void> = async () => {};
  readonly logs: string[] = [];

  constructor(readonly opts: OneMachineOptions) {
    this.org = opts.org ?? "acme";
  }

  get dataDir(): string {
    return join(this.opts.dir, "data");
  }

  async setUp(): Promise<void> {
    const { dir } = this.opts;
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    this.tls = await makeTlsCertificate(dir);
    this.runner = await runnerExecutable(dir);
    this.collector = await installCollector(this.opts.collectorSource, dir);
    if (this.opts.tracefs !== false) this.undoTracefs = await ensureTracefs();
    const targetsFile = join(dir, "targets.json");
    writeFileSync(targetsFile, JSON.stringify({ targets: this.opts.targets.map((workload) => ({ workload })) }, null, 2));
    chmodSync(targetsFile, 0o444);
    this.apiPort = await freePort();
    this.tunnelPort = await freePort();
    await this.startServer();
    await this.admin("org", "create", this.org);
    await this.admin("profiler", "enable", this.org);
    this.captureToken = lastLine(await this.admin("token", "create", this.org, "ci-pipeline"));
    this.bootstrapToken = lastLine(await this.admin("bootstrap-token", "create", this.org));
  }

  async startServer(): Promise<void> {
    this.apiUrl = `https://127.0.0.1:${this.apiPort}`;
    this.tunnelUrl = `wss://127.0.0.1:${this.tunnelPort}/tunnel`;
    this.server = Bun.spawn(
      [
        this.runner, "server",
        "--listen", `127.0.0.1:${this.apiPort}`,
        "--tunnel-listen", `127.0.0.1:${this.tunnelPort}`,
        "--data", this.dataDir,
        "--tls-cert", this.tls.cert,
        "--tls-key", this.tls.key,
      ],
      { stdout: "pipe", stderr: "pipe", env: { ...process.env, RUNNER_LOG_LEVEL: this.opts.logLevel ?? "info" } },
    );
    this.collect("server", this.server);
    await this.waitFor(async () => (await this.fetchApi("/healthz")).ok, 15_000, "control plane /healthz");
  }

  async stopServer(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    this.server?.kill(signal);
    await this.server?.exited;
    this.server = null;
  }

  async admin(...args: string[]): Promise<string> {
    return this.adminWithStdin(undefined, ...args);
  }

  /** `runner admin` with `stdin` on its standard input (a password for --password-stdin). */
  async adminWithStdin(stdin: string | undefined, ...args: string[]): Promise<string> {
    const p = Bun.spawn([this.runner, "admin", "--data", this.dataDir, ...args], { stdin: stdin === undefined ? "ignore" : Buffer.from(stdin), stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    if (code !== 0) throw new Error(`runner admin ${args.slice(0, 2).join(" ")} failed (${code}): ${err.trim()}`);
    return out;
  }

  async capture(id: string): Promise<Record<string, unknown>> {
    return JSON.parse(await this.admin("captures", "show", id, "--json"));
  }

  async startProfiler(instanceId: string, extraEnv: Record<string, string> = {}): Promise<Subprocess> {
    const identity = ownedByUnprivileged(join(this.opts.dir, `identity-${instanceId}`));
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      RUNNER_TENANT: this.org,
      RUNNER_INSTANCE_ID: instanceId,
      RUNNER_TUNNEL_URL: this.tunnelUrl,
      RUNNER_ENROLL_URL: this.apiUrl,
      RUNNER_IDENTITY_DIR: identity,
      RUNNER_PROFILE_TARGETS_FILE: join(this.opts.dir, "targets.json"),
      // The token comes from a file, as a mounted secret would: never plain configuration.
      RUNNER_BOOTSTRAP_TOKEN_FILE: this.secretFile(`bootstrap-token-${instanceId}`, this.bootstrapToken),
      RUNNER_COLLECTOR_PATH: this.collector,
      RUNNER_LOCAL_LISTEN: `127.0.0.1:${await freePort()}`,
      RUNNER_CA_FILE: this.tls.cert,
      RUNNER_LOG_LEVEL: this.opts.logLevel ?? "info",
      ...extraEnv,
    };
    const p = Bun.spawn(asUnprivileged([this.runner, "profiler"]), { stdout: "pipe", stderr: "pipe", env });
    this.collect(`profiler ${instanceId}`, p);
    this.profilers.set(instanceId, p);
    return p;
  }

  async stopProfiler(instanceId: string, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const p = this.profilers.get(instanceId);
    p?.kill(signal);
    await p?.exited;
    this.profilers.delete(instanceId);
  }

  /** Waits until the Profiler's log says its tunnel is up. */
  async waitProfilerUp(instanceId: string, timeoutMs = 20_000): Promise<void> {
    await this.waitFor(async () => this.logs.some((l) => l.startsWith(`profiler ${instanceId}`) && l.includes("tunnel up")), timeoutMs, `profiler ${instanceId} tunnel`);
  }

  startWorkload(bin: string, args: string[] = []): Subprocess {
    const p = Bun.spawn(asUnprivileged([bin, ...args]), { stdout: "ignore", stderr: "ignore" });
    this.workloads.push(p);
    return p;
  }

  async queue(body: CaptureBody): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await this.fetchApi("/api/profiling/captures", {
      method: "POST",
      headers: { authorization: `Bearer ${this.captureToken}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /** Polls the record until it is done; `onTick` sees each state (progress display). */
  async waitDone(id: string, timeoutMs: number, onTick?: (r: Record<string, unknown>) => void): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.capture(id);
      onTick?.(r);
      if (r.status === "done") return r;
      if (Date.now() > deadline) throw new Error(`capture ${id} still ${String(r.status)} after ${timeoutMs} ms\n${this.logs.slice(-30).join("\n")}`);
      await Bun.sleep(500);
    }
  }

  fetchApi(path: string, init: RequestInit = {}): Promise<Response> {
    return fetch(`${this.apiUrl}${path}`, { ...init, tls: { ca: Bun.file(this.tls.cert) } } as RequestInit);
  }

  async tearDown(): Promise<void> {
    for (const w of this.workloads) w.kill("SIGTERM");
    for (const id of [...this.profilers.keys()]) await this.stopProfiler(id);
    await this.stopServer();
    await Promise.all(this.workloads.map((w) => w.exited));
    await this.undoTracefs();
  }

  private secretFile(name: string, value: string): string {
    const path = join(this.opts.dir, name);
    writeFileSync(path, `${value}\n`, { mode: 0o400 });
    chownSync(path, UNPRIVILEGED_UID, UNPRIVILEGED_UID);
    return path;
  }

  /** Only for tests that prove the token never reaches a log line. */
  get bootstrapTokenForTests(): string {
    return this.bootstrapToken;
  }

  private collect(label: string, p: Subprocess): void {
    for (const stream of [p.stdout, p.stderr]) {
      if (!stream || typeof stream === "number") continue;
      void (async () => {
        const decoder = new TextDecoder();
        let buf = "";
        for await (const chunk of stream as ReadableStream<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          let i: number;
          while ((i = buf.indexOf("\n")) >= 0) {
            this.logs.push(`${label}: ${buf.slice(0, i)}`);
            buf = buf.slice(i + 1);
          }
        }
      })();
    }
  }

  private async waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check().catch(() => false)) return;
      await Bun.sleep(100);
    }
    throw new Error(`timed out waiting for ${what}\n${this.logs.slice(-30).join("\n")}`);
  }
}

function lastLine(s: string): string {
  return s.trim().split("\n").at(-1)!.trim();
}
