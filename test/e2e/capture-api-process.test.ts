// The `runner server` process itself: a crash-restart keeps every 202-acknowledged request,
// and its logs never contain a token, however the token was sent.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOOTSTRAP_TOKEN_PREFIX, CAPTURE_TOKEN_PREFIX, generateToken } from "../../src/protocol/token-format.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";
import { mustAdmin } from "../helpers/runner-admin.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { parseProfile } from "../../src/witness/parse.ts";
import { Client, PASSWORD, pushCaptureAt } from "../unit/web-harness.ts";

// Each test starts several `runner` processes; from source on a busy machine that takes seconds.
const PROCESS_TIMEOUT = 60_000;

// A self-signed P-256 certificate for 127.0.0.1 (valid until 2126), test-only: no openssl needed.
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBjjCCATagAwIBAgIUTa1EMg31ja7q0mCkUKke6MDKnwswCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMTE2NDkyOFoYDzIxMjYxMDI4
MTY0OTI4WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQEv3lXDMi5Qsd17E7S0LMd7xY92ULZgW2N7YKGucsLZBUz0hmJEgq7
lz9X5d9oicnT17sf0uoygnm+G35DY+vTo2QwYjAdBgNVHQ4EFgQUa7eCnzleJCXX
yZ8ImvQ3CakKAlswHwYDVR0jBBgwFoAUa7eCnzleJCXXyZ8ImvQ3CakKAlswDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0YAMEMC
IACSPiM+Nr2GxD58vu1Ysix2eM9IyY+fuP1va31CD6t/Ah8ZdVAq4+7KOTTUOmRl
rbKcAuPQZPW2LjQvPdcnOrIN
-----END CERTIFICATE-----
`;
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgHTLoo6CoFrRgleSw
wnXuPZHlglDzUzYNIf4cbsQVjZWhRANCAAQEv3lXDMi5Qsd17E7S0LMd7xY92ULZ
gW2N7YKGucsLZBUz0hmJEgq7lz9X5d9oicnT17sf0uoygnm+G35DY+vT
-----END PRIVATE KEY-----
`;

let dir: string;
const running: Subprocess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "runner-server-proc-"));
});
afterEach(() => {
  for (const p of running.splice(0)) p.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const admin = (...args: string[]): string => mustAdmin(dir, args);

/** Starts `runner server` on a free port; resolves with its URL and everything it logged so far. */
async function startServer(data = dir): Promise<{ url: string; proc: Subprocess<"ignore", "pipe", "pipe">; log: () => string }> {
  const proc = Bun.spawn([...runnerCommand(), "server", "--listen", "127.0.0.1:0", "--data", data], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, RUNNER_LOG_LEVEL: "debug" },
  });
  running.push(proc);
  let out = "";
  let err = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of proc.stderr) err += decoder.decode(chunk);
  })();
  const url = await new Promise<string>((resolve, reject) => {
    void (async () => {
      for await (const chunk of proc.stdout) {
        out += decoder.decode(chunk);
        const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
        if (m) resolve(m[1]!);
      }
      reject(new Error(`server exited before listening: ${out}${err}`));
    })();
  });
  return { url, proc, log: () => out + err };
}

function capture(url: string, token: string, body: object) {
  return fetch(`${url}/api/profiling/captures`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function setUpOrg(): string {
  admin("org", "create", "acme");
  admin("profiler", "enable", "acme");
  return admin("token", "create", "acme", "ci").trimEnd().split("\n").at(-1)!;
}

describe("runner server process", () => {
  test("a SIGKILL right after the 202s loses no acknowledged request", async () => {
    const token = setUpOrg();
    const s1 = await startServer();
    const health = await fetch(`${s1.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get("strict-transport-security")).toBeNull(); // plain HTTP: HSTS would be ignored, and wrong
    const sends = Array.from({ length: 30 }, (_, i) => capture(s1.url, token, { workload: "w", version: `v${i % 25}` }));
    const answers = await Promise.all(sends.map(async (p) => {
      const r = await p;
      return { status: r.status, body: (await r.json()) as { request_id?: string } };
    }));
    s1.proc.kill("SIGKILL");
    await s1.proc.exited;
    const acknowledged = new Set(answers.filter((a) => a.status === 202).map((a) => a.body.request_id!));
    expect(acknowledged.size).toBe(20);
    expect(answers.filter((a) => a.status === 429).length).toBeGreaterThan(0);

    const listed = JSON.parse(admin("captures", "list", "acme", "--json")) as Array<{ request_id: string; status: string; requester: string }>;
    expect(new Set(listed.map((r) => r.request_id))).toEqual(acknowledged);
    expect(listed.every((r) => r.status === "queued" && r.requester === "ci")).toBe(true);

    // the hourly count survives the restart too
    const s2 = await startServer();
    expect((await capture(s2.url, token, { workload: "w", version: "new" })).status).toBe(429);
  }, PROCESS_TIMEOUT);

  test("no token reaches the logs: header, query string, wrong kind, invalid, revoked", async () => {
    const token = setUpOrg();
    const boot = admin("bootstrap-token", "create", "acme").trimEnd().split("\n").at(-1)!;
    const forged = generateToken(CAPTURE_TOKEN_PREFIX);
    const otherBoot = generateToken(BOOTSTRAP_TOKEN_PREFIX);
    const s = await startServer();
    const base = `${s.url}/api/profiling/captures`;
    const send = (q: string, body = '{"workload":"w","version":"1"}', headers: Record<string, string> = {}) =>
      fetch(`${base}${q}`, { method: "POST", headers, body });
    expect((await send(`?token=${token}`)).status).toBe(202);
    expect((await send(`?token=${token}`, '{"workload":"w","version":"1","x":1}')).status).toBe(400);
    expect((await send("", '{"workload":"w","version":"2"}', { authorization: `Bearer ${token}` })).status).toBe(202);
    expect((await send(`?token=${forged}`)).status).toBe(401);
    expect((await send(`?token=${boot}`)).status).toBe(401);
    expect((await send(`?x=1&token=${otherBoot}&y=2`)).status).toBe(401);
    expect((await send(`?token=${token}`, `{"workload":"w","version":"1","token":"${token}"}`)).status).toBe(400);
    admin("token", "revoke", "acme", "ci");
    expect((await send(`?token=${token}`, '{"workload":"w","version":"3"}')).status).toBe(401);
    s.proc.kill("SIGTERM");
    expect(await s.proc.exited).toBe(0);
    const log = s.log();
    expect(log).toContain("capture request queued"); // the log is there, and at debug level
    expect(log).toContain("unauthenticated");
    for (const secret of [token, boot, forged, otherBoot]) {
      expect(log).not.toContain(secret);
      expect(log).not.toContain(secret.slice(7, 27));
    }
    expect(log).not.toMatch(/(rpcap|rpboot)_(?!\[REDACTED\])[0-9A-Za-z]/);
  }, PROCESS_TIMEOUT);

  test("a token sent as workload, version, env or sign-in org is redacted in every log field", async () => {
    const token = setUpOrg();
    const pasted = { workload: generateToken(CAPTURE_TOKEN_PREFIX), version: generateToken(BOOTSTRAP_TOKEN_PREFIX), env: `prefix-${generateToken(CAPTURE_TOKEN_PREFIX)}` };
    const orgToken = generateToken(CAPTURE_TOKEN_PREFIX);
    const s = await startServer();
    // Queued, deduped and refused requests each log the fields they were given.
    expect((await capture(s.url, token, pasted)).status).toBe(202);
    expect((await capture(s.url, token, pasted)).status).toBe(202);
    expect((await capture(s.url, token, { ...pasted, duration_sec: 1 })).status).toBe(400);
    const signIn = await fetch(`${s.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ org: orgToken, email: "someone@example.com", password: "wrong-password" }).toString(),
      redirect: "manual",
    });
    expect(signIn.status).toBe(401);
    s.proc.kill("SIGTERM");
    expect(await s.proc.exited).toBe(0);
    const log = s.log();
    expect(log).toContain("capture request queued");
    expect(log).toContain("app sign-in refused");
    for (const secret of [token, pasted.workload, pasted.version, pasted.env, orgToken]) {
      const body = secret.slice(secret.indexOf("_") + 1);
      expect(log).not.toContain(body.slice(0, 20));
    }
    expect(log).not.toMatch(/(rpcap|rpboot)_(?!\[REDACTED\])[0-9A-Za-z]/);
  }, PROCESS_TIMEOUT);

  test("control characters and a key sent twice are refused naming the field; stored ones print escaped", async () => {
    const token = setUpOrg();
    const s = await startServer();
    // The attack's version: erase the line, move up, retitle the window, fake a status.
    const attack = "1.0\u001b[2K\u001b[1A\u001b]0;pwned\u0007\r\u001b[32mstatus OK";
    const refused: Array<[object | string, string, string]> = [
      [{ workload: "w", version: attack }, "version", "U+001B at character 4"],
      [{ workload: "w", version: "1", env: "prod\u0000" }, "env", "U+0000"],
      [{ workload: "w\rx", version: "1" }, "workload", "U+000D"],
      [{ workload: "bin/api", version: "1" }, "workload", 'contains "/"'],
      ['{"workload":"w","version":"1","version":"2"}', "version", "appears more than once"],
    ];
    for (const [body, field, words] of refused) {
      const r = typeof body === "string" ? await fetch(`${s.url}/api/profiling/captures`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body }) : await capture(s.url, token, body);
      const answer = (await r.json()) as { error: string; field: string };
      expect({ status: r.status, field: answer.field, named: answer.error.startsWith(field) && answer.error.includes(words) }).toEqual({ status: 400, field, named: true });
    }
    s.proc.kill("SIGTERM");
    expect(await s.proc.exited).toBe(0);
    expect(JSON.parse(admin("captures", "list", "acme", "--json"))).toEqual([]);
    // A record stored before the rule, failed with a reason a Profiler wrote: the CLI must not let
    // either reach the terminal as escapes.
    const store = new SqliteStore(join(dir, "runner.db"));
    const org = (await store.getOrg("acme"))!;
    const q = await store.queueCapture(org.id, "ci", { workload: "w", version: attack, env: "\u009b31m", kind: "head", durationSec: 5, warmupSec: 0 }, { limit: 20, windowMs: 3600_000, now: Date.now() });
    if (q.kind !== "queued") throw new Error(q.kind);
    await store.completeCapture(q.requestId, { outcome: "failed", reason: "ptop: \u001b]8;;http://evil\u0007click\u001b]8;;\u0007 \u202eexe.txt" });
    await store.close();
    const printed = [admin("captures", "list", "acme"), admin("captures", "show", q.requestId), admin("captures", "list", "acme", "--json"), admin("captures", "show", q.requestId, "--json")];
    for (const out of printed) expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(printed[0]).toContain("w@1.0\\x1b[2K\\x1b[1A\\x1b]0;pwned\\x07\\x0d\\x1b[32mstatus OK (\\x9b31m)");
    expect(printed[1]).toContain("ptop: \\x1b]8;;http://evil\\x07click\\x1b]8;;\\x07 \\u202eexe.txt");
    // JSON keeps the same values, still valid JSON.
    const shown = JSON.parse(printed[3]!) as { version: string; env: string; reason: string };
    expect([shown.version, shown.env]).toEqual([attack, "\u009b31m"]);
    expect(shown.reason).toContain("\u202eexe.txt");
  }, PROCESS_TIMEOUT);

  test("the store is its owner's only whatever the umask; a wider one is warned about by runner server and runner doctor", async () => {
    const data = join(dir, "store");
    const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
    const before = process.umask(0o022); // the processes below inherit it
    try {
      expect(Bun.spawnSync([...runnerCommand(), "admin", "--data", data, "org", "create", "acme"]).exitCode).toBe(0);
      expect([mode(data), mode(join(data, "runner.db"))]).toEqual(["700", "600"]);
      const s = await startServer(data);
      // Open in WAL mode: SQLite made -wal and -shm with the database file's mode.
      expect(["runner.db", "runner.db-wal", "runner.db-shm"].map((f) => mode(join(data, f)))).toEqual(["600", "600", "600"]);
      s.proc.kill("SIGTERM");
      expect(await s.proc.exited).toBe(0);
      expect(s.log()).not.toContain("readable by other local users");
      const tight = Bun.spawnSync([...runnerCommand(), "doctor", "--data", data], { stdout: "pipe" });
      expect({ code: tight.exitCode, out: tight.stdout.toString() }).toEqual({ code: 0, out: `pass  [store] store ${data}: only its owner may read it (directory 0700, files 0600)\nthe store: 0 warnings\n` });

      // A store made before this rule (or chmod-ed since): warned about, with the fix, not changed.
      chmodSync(data, 0o755);
      chmodSync(join(data, "runner.db"), 0o644);
      const wide = await startServer(data);
      wide.proc.kill("SIGTERM");
      expect(await wide.proc.exited).toBe(0);
      const warning = wide.log().split("\n").find((l) => l.includes("readable by other local users"));
      expect(JSON.parse(warning!)).toMatchObject({ level: 40, wider: [`${data} is mode 0755, not 0700: other local users can list or enter it`, `${join(data, "runner.db")} is mode 0644, not 0600: other local users can read it`, `${join(data, "runner.db")}-wal is mode 0644, not 0600: other local users can read it`, `${join(data, "runner.db")}-shm is mode 0644, not 0600: other local users can read it`], fix: `chmod 700 ${data} && chmod 600 ${data}/runner.db*` });
      const doctor = Bun.spawnSync([...runnerCommand(), "doctor", "--data", data, "--json"], { stdout: "pipe" });
      const findings = (JSON.parse(doctor.stdout.toString()) as { findings: Array<{ status: string; message: string; fix: string }> }).findings;
      expect(doctor.exitCode).toBe(0);
      // (-wal and -shm are gone once the last process closed the store)
      expect(findings.map((f) => [f.status, f.message.split(" is mode ")[0]]).slice(0, 2)).toEqual([["warn", data], ["warn", join(data, "runner.db")]]);
      expect(findings[0]!.fix).toBe(`chmod 700 ${data} && chmod 600 ${data}/runner.db*`);
      expect(mode(data)).toBe("755");

      // No umask at all: still the owner's only.
      process.umask(0);
      const open = join(dir, "store-umask-0");
      expect(Bun.spawnSync([...runnerCommand(), "admin", "--data", open, "org", "create", "acme"]).exitCode).toBe(0);
      expect([mode(open), mode(join(open, "runner.db"))]).toEqual(["700", "600"]);
    } finally {
      process.umask(before);
    }
  }, PROCESS_TIMEOUT);

  test("hostile enrolment keys are a 400 and prototype-named axes a 404, with nothing in the log", async () => {
    setUpOrg();
    const boot = admin("bootstrap-token", "create", "acme").trimEnd().split("\n").at(-1)!;
    mustAdmin(dir, ["user", "create", "acme", "a@acme.test", "--role", "owner", "--password-stdin"], `${PASSWORD}\n`);
    // A pushed capture, stored as the dispatcher stores a Profiler's push.
    const store = new SqliteStore(join(dir, "runner.db"));
    const profile = parseProfile(readFileSync(join(import.meta.dir, "../fixtures/profiles/api-v1-head.stream.jsonl")), "stream");
    const id = await pushCaptureAt(store, "acme", { workload: "api", version: "1" }, profile, { probes_requested: 2, probes_attached: 2, missing: [] }, Date.now());
    await store.close();
    const s = await startServer();
    const enrol = (key: string) =>
      fetch(`${s.url}/api/profiler/enroll`, { method: "POST", headers: { "x-runner-tenant": "acme", authorization: `Bearer ${boot}` }, body: JSON.stringify({ instance_id: "n1", class: "profiler", public_key: key }) });
    for (const key of [Buffer.alloc(32).toString("base64"), Buffer.from([1, ...Array(31).fill(0)]).toString("base64"), `${Buffer.alloc(32, 7).toString("base64")}AAAA`]) {
      const r = await enrol(key);
      expect({ status: r.status, error: ((await r.json()) as { error: string }).error.split(" ")[0] }).toEqual({ status: 400, error: "public_key:" });
    }
    const member = new Client(s.url);
    expect((await member.signIn("acme", "a@acme.test", PASSWORD)).status).toBe(303);
    for (const axis of ["__proto__", "constructor", "toString"]) {
      const r = await member.get(`/profiling/captures/${id}/download/folded?axis=${axis}`);
      expect({ status: r.status, text: await r.text() }).toEqual({ status: 404, text: `axis "${axis}" does not exist in this capture; its axes: cpu, syscalls` });
    }
    s.proc.kill("SIGTERM");
    expect(await s.proc.exited).toBe(0);
    expect(s.log()).not.toContain("unhandled error");
  }, PROCESS_TIMEOUT);

  test("--tls-cert/--tls-key serve HTTPS", async () => {
    const cert = join(dir, "cert.pem");
    const key = join(dir, "key.pem");
    await Bun.write(cert, TEST_CERT);
    await Bun.write(key, TEST_KEY);
    const token = setUpOrg();
    const proc = Bun.spawn([...runnerCommand(), "server", "--listen", "127.0.0.1:0", "--data", dir, "--tls-cert", cert, "--tls-key", key], { stdout: "pipe", stderr: "pipe" });
    running.push(proc);
    let out = "";
    let url = "";
    for await (const chunk of proc.stdout) {
      out += new TextDecoder().decode(chunk);
      const m = /"url":"(https:\/\/[^"]+)"/.exec(out);
      if (m) {
        url = m[1]!;
        break;
      }
    }
    expect(url).toStartWith("https://127.0.0.1:");
    const tls = { ca: await Bun.file(cert).text() };
    expect((await fetch(`${url}/healthz`, { tls })).status).toBe(200);
    const res = await fetch(`${url}/api/profiling/captures`, { method: "POST", tls, headers: { authorization: `Bearer ${token}` }, body: '{"workload":"w","version":"1"}' });
    expect(res.status).toBe(202);
    // Over TLS every answer (API, page, redirect, 404) keeps browsers to HTTPS.
    for (const path of ["/healthz", "/login", "/profiling", "/no-such-page"]) {
      expect([path, (await fetch(`${url}${path}`, { tls, redirect: "manual" })).headers.get("strict-transport-security")]).toEqual([path, "max-age=31536000"]);
    }
    expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000");
    const mismatched = Bun.spawnSync([...runnerCommand(), "server", "--listen", "127.0.0.1:0", "--data", dir, "--tls-cert", cert], { stderr: "pipe" });
    expect(mismatched.exitCode).not.toBe(0);
    expect(mismatched.stderr.toString()).toContain("--tls-cert and --tls-key go together");
  }, PROCESS_TIMEOUT);

  test("bad flags: a clear message and a non-zero exit", () => {
    const r = Bun.spawnSync([...runnerCommand(), "server", "--listen", "nowhere", "--data", dir], { stderr: "pipe" });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.toString()).toContain("--listen must be HOST:PORT");
  }, PROCESS_TIMEOUT);
});
