// Test harness for the web app: a real server on a real SQLite file, members created through the
// same code as `runner admin user create`, and a cookie-keeping client that submits forms the way
// a browser does (form encoding, the page's CSRF token, same Origin).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { createLogger } from "../../src/log.ts";
import { CAPTURE_TOKEN_PREFIX, generateToken, hashToken } from "../../src/protocol/token-format.ts";
import type { RateLimit } from "../../src/server/captures/queue-capture.ts";
import type { DispatchingStore } from "../../src/server/dispatch/create.ts";
import { storeAndDiff } from "../../src/server/records/diff-on-arrival.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import type { Store } from "../../src/server/store/store.ts";
import type { RecordInstrumentation } from "../../src/server/store/types.ts";
import type { Role } from "../../src/server/store/user-store.ts";
import { createMember } from "../../src/server/users/create-user.ts";
import type { Capture } from "../../src/witness/model.ts";
import { toStream } from "../../src/witness/stream.ts";

export const PASSWORD = "correct horse battery staple";

export interface Web<S extends Store = SqliteStore> {
  url: string;
  store: S;
  server: RunningServer;
  member(org: string, email: string, role: Role): Promise<Client>;
  captureToken(org: string, name: string): Promise<string>;
  /** Queues, runs and pushes a capture as a Profiler would, then diffs it on arrival. */
  pushCapture(org: string, req: { workload: string; version: string; env?: string; kind?: "head" | "replicate" }, capture: Capture, instrumentation: RecordInstrumentation): Promise<string>;
  stop(): Promise<void>;
}

export async function startWeb(opts: { rateLimit?: RateLimit } = {}): Promise<Web> {
  const dir = mkdtempSync(join(tmpdir(), "runner-web-"));
  const store = new SqliteStore(join(dir, "runner.db"));
  return startWebOn(store, opts, async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

/** The same app on any Store (the PostgreSQL run uses it); `cleanup` runs after the server stops. */
export async function startWebOn<S extends Store & DispatchingStore>(store: S, opts: { rateLimit?: RateLimit }, cleanup: () => Promise<void>): Promise<Web<S>> {
  const logger = createLogger("test", "silent");
  const server = await startServer({ hostname: "127.0.0.1", port: 0, store, logger, rateLimit: opts.rateLimit });
  let clock = Date.now() - 3600_000;
  const web: Web<S> = {
    url: server.url,
    store,
    server,
    async member(org, email, role) {
      if (!(await store.getOrg(org))) await store.createOrg(org);
      await createMember(store, org, email, role, PASSWORD);
      const c = new Client(server.url);
      const res = await c.signIn(org, email, PASSWORD);
      if (res.status !== 303) throw new Error(`sign-in failed: ${res.status}`);
      return c;
    },
    async captureToken(org, name) {
      const t = generateToken(CAPTURE_TOKEN_PREFIX);
      await store.addCaptureToken(org, name, hashToken(t));
      return t;
    },
    async pushCapture(org, req, capture, instrumentation) {
      clock += 60_000;
      return pushCaptureAt(store, org, req, capture, instrumentation, clock);
    },
    async stop() {
      await server.stop();
      await cleanup();
    },
  };
  return web;
}

/** Queues, runs and pushes a capture at time `at` as a Profiler would, then diffs it on arrival. */
export async function pushCaptureAt(
  store: Store,
  org: string,
  req: { workload: string; version: string; env?: string; kind?: "head" | "replicate" },
  capture: Capture,
  instrumentation: RecordInstrumentation,
  at: number,
  requester = "ci",
): Promise<string> {
  const o = (await store.getOrg(org))!;
  const q = await store.queueCapture(o.id, requester, { env: "", kind: "head", durationSec: 60, warmupSec: 5, ...req }, { limit: 1e9, windowMs: 1, now: at });
  if (q.kind !== "queued") throw new Error(`not queued: ${q.kind}`);
  await store.markCaptureRunning(q.requestId, at);
  const rec = await store.completeCapture(q.requestId, { outcome: "pushed", instrumentation }, at);
  await storeAndDiff({ store, logger: createLogger("test", "silent"), now: () => at }, rec, gzipSync(toStream(capture)), "node-a");
  return q.requestId;
}

export class Client {
  cookie: string | null = null;
  csrf = "";
  constructor(readonly base: string) {}

  async signIn(org: string, email: string, password: string): Promise<Response> {
    const res = await this.post("/login", { org, email, password }, { csrf: null });
    const set = res.headers.get("set-cookie");
    if (set) this.cookie = set.split(";")[0]!;
    if (res.status === 303) {
      const page = await (await this.get("/profiling")).text();
      this.csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
    }
    return res;
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(this.base + path, { redirect: "manual", headers: { ...(this.cookie ? { cookie: this.cookie } : {}), ...headers } });
  }

  /** A form post; `csrf: null` leaves the token out, a string overrides it. */
  post(path: string, fields: Record<string, string>, o: { csrf?: string | null; origin?: string; headers?: Record<string, string> } = {}): Promise<Response> {
    const form = new URLSearchParams(fields);
    const csrf = o.csrf === undefined ? this.csrf : o.csrf;
    if (csrf !== null) form.set("_csrf", csrf);
    return fetch(this.base + path, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: o.origin ?? this.base,
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...o.headers,
      },
      body: form.toString(),
    });
  }
}
