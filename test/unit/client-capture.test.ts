// `runner capture` (pipeline client) as a process against a real control plane.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/log.ts";
import { CAPTURE_TOKEN_PREFIX, generateToken, hashToken } from "../../src/protocol/token-format.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";

// Each test starts several `runner` processes; from source on a busy machine that takes seconds.
const PROCESS_TIMEOUT = 60_000;

let dir: string;
let store: SqliteStore;
let server: RunningServer;
let token: string;
let offToken: string;
const WINDOW_MS = 3000;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "runner-client-"));
  store = new SqliteStore(join(dir, "runner.db"));
  // A short window and a limit of 3 so the --retry path completes in seconds.
  server = await startServer({ hostname: "127.0.0.1", port: 0, store, logger: createLogger("test", "silent"), rateLimit: { limit: 3, windowMs: WINDOW_MS } });
  await store.createOrg("acme");
  await store.setProfilerEnabled("acme", true);
  await store.createOrg("off");
  token = generateToken(CAPTURE_TOKEN_PREFIX);
  offToken = generateToken(CAPTURE_TOKEN_PREFIX);
  await store.addCaptureToken("acme", "ci", hashToken(token));
  await store.addCaptureToken("off", "ci", hashToken(offToken));
});
afterAll(async () => {
  await server.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function capture(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([...runnerCommand(), "capture", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}
const base = () => ["--url", server.url];

describe("runner capture", () => {
  test("202: prints the body as JSON, exit 0; flags map to the request fields", async () => {
    const r = await capture([...base(), "--token", token, "--workload", "api", "--version", "1", "--env", "prod", "--kind", "replicate", "--duration", "30", "--warmup", "0"]);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.out);
    expect(body).toEqual({ request_id: expect.any(String), status: "queued", deduped: false });
    expect(await store.getCapture(body.request_id)).toMatchObject({ workload: "api", version: "1", env: "prod", kind: "replicate", durationSec: 30, warmupSec: 0, requester: "ci" });
    // the same again, token from the environment: deduped, still exit 0
    const again = await capture([...base(), "--workload", "api", "--version", "1", "--env", "prod", "--kind", "replicate", "--duration", "30", "--warmup", "0"], { RUNNER_CAPTURE_TOKEN: token });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toEqual({ ...body, deduped: true });
    // --token still works, and says where the token is now visible; the environment says nothing.
    expect(r.err).toContain("runner capture: warning: --token puts the capture token in the command line, where ps shows it to every local user; set RUNNER_CAPTURE_TOKEN instead");
    expect(again.err).not.toContain("--token");
  }, PROCESS_TIMEOUT);

  test("401: non-zero exit, a clear message, and the token is not echoed", async () => {
    const bad = generateToken(CAPTURE_TOKEN_PREFIX);
    const r = await capture([...base(), "--token", bad, "--workload", "api", "--version", "1"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("401");
    expect(r.err).toContain("token");
    expect(r.err + r.out).not.toContain(bad);
  }, PROCESS_TIMEOUT);

  test("403: says the Profiler is not enabled", async () => {
    const r = await capture([...base(), "--token", offToken, "--workload", "api", "--version", "1"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("403");
    expect(r.err).toContain("not enabled");
  }, PROCESS_TIMEOUT);

  test("400: passes on the server's message naming the field", async () => {
    const r = await capture([...base(), "--token", token, "--workload", "api", "--version", "1", "--duration", "900"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("400");
    expect(r.err).toContain("duration_sec");
  }, PROCESS_TIMEOUT);

  test("429: fails without --retry; with --retry waits retry_after_seconds and succeeds", async () => {
    // fill the org's window (limit 3, one already used by the first test or not: fill until 429)
    let r;
    for (let i = 0; i < 5; i++) {
      r = await capture([...base(), "--token", token, "--workload", "fill", "--version", String(i)]);
      if (r.code !== 0) break;
    }
    expect(r!.code).toBe(1);
    expect(r!.err).toContain("429");
    expect(r!.err).toContain("--retry");
    const started = Date.now();
    const retried = await capture([...base(), "--token", token, "--workload", "after", "--version", "1", "--retry"]);
    expect(retried.code).toBe(0);
    expect(JSON.parse(retried.out).status).toBe("queued");
    expect(retried.err).toContain("rate limited; waiting");
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  }, PROCESS_TIMEOUT);

  test("unreachable server and wrong base URL: non-zero with the reason", async () => {
    const down = await capture(["--url", "http://127.0.0.1:9", "--token", token, "--workload", "a", "--version", "1"]);
    expect(down.code).toBe(1);
    expect(down.err).toContain("could not reach");
    const wrong = await capture(["--url", `${server.url}/nothing-here`, "--token", token, "--workload", "a", "--version", "1"]);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain("404");
  }, PROCESS_TIMEOUT);

  test("what an answer says is printed terminal-safe: a proxy's error cannot rewrite the screen", async () => {
    // A proxy in front of the control plane, answering with escape sequences in its error.
    const proxy = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ error: "upstream \u001b]0;pwned\u0007\u001b[2K\rstatus OK" }, { status: 502 }) });
    try {
      const r = await capture(["--url", `http://127.0.0.1:${proxy.port}`, "--workload", "a", "--version", "1"], { RUNNER_CAPTURE_TOKEN: token });
      expect(r.code).toBe(1);
      expect(r.err).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
      expect(r.err).toContain("upstream \\x1b]0;pwned\\x07\\x1b[2K\\x0dstatus OK");
    } finally {
      proxy.stop(true);
    }
  }, PROCESS_TIMEOUT);

  test("usage errors exit 2 and name the flag", async () => {
    const noToken = await capture([...base(), "--workload", "a", "--version", "1"], { RUNNER_CAPTURE_TOKEN: "" });
    expect(noToken.code).toBe(2);
    expect(noToken.err).toContain("RUNNER_CAPTURE_TOKEN");
    const noVersion = await capture([...base(), "--token", token, "--workload", "a"]);
    expect(noVersion.code).toBe(2);
    expect(noVersion.err).toContain("--version is required");
    const badKind = await capture([...base(), "--token", token, "--workload", "a", "--version", "1", "--kind", "tail"]);
    expect(badKind.code).toBe(2);
    const badNum = await capture([...base(), "--token", token, "--workload", "a", "--version", "1", "--duration", "soon"]);
    expect(badNum.code).toBe(2);
    expect(badNum.err).toContain("--duration");
    for (const url of ["127.0.0.1:8080", "localhost", "ftp://127.0.0.1:8080", "http://"]) {
      const noScheme = await capture(["--url", url, "--token", token, "--workload", "a", "--version", "1"]);
      expect(noScheme.code).toBe(2);
      expect(noScheme.err).toContain(`--url must be the control plane's base URL with its scheme, e.g. https://`);
      expect(noScheme.err).toContain(`got "${url}"`);
    }
  }, PROCESS_TIMEOUT);
});
